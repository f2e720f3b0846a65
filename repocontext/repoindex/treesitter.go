//go:build cgo

package repoindex

import (
	"context"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Parser names which definition parser this build uses (tree-sitter needs cgo).
const Parser = "tree-sitter"

func grammar(lang string) *sitter.Language {
	switch lang {
	case "python":
		return python.GetLanguage()
	case "javascript":
		return javascript.GetLanguage()
	case "typescript":
		return typescript.GetLanguage()
	case "tsx":
		return tsx.GetLanguage()
	case "rust":
		return rust.GetLanguage()
	case "java":
		return java.GetLanguage()
	}
	return nil
}

// defKinds maps each grammar's definition node types to a kind.
var defKinds = map[string]string{
	"function_definition": "func", "class_definition": "class", // python
	"function_declaration": "func", "generator_function_declaration": "func", "class_declaration": "class",
	"method_definition": "method", "interface_declaration": "interface", "type_alias_declaration": "type",
	"enum_declaration": "enum", "abstract_class_declaration": "class", // js, ts
	"function_item": "func", "struct_item": "type", "enum_item": "enum", "trait_item": "trait",
	"impl_item": "impl", "mod_item": "mod", "function_signature_item": "func", "macro_definition": "macro", // rust
	"method_declaration": "method", "constructor_declaration": "method", "record_declaration": "class", // java
	"variable_declarator": "func", // js/ts `const f = () => …`, kept only with a function value
}

// parsers are reused across files: making one per file was a tenth of
// the parse. Dropped ones are freed by go-tree-sitter's finalizer.
var parsers = sync.Pool{New: func() any { return sitter.NewParser() }}

// otherDefs parses Python, JavaScript/TypeScript, Rust and Java with
// tree-sitter grammars; other languages get no definitions.
func otherDefs(lang string, src []byte) []Def {
	g := grammar(lang)
	if g == nil {
		return nil
	}
	p := parsers.Get().(*sitter.Parser)
	defer parsers.Put(p)
	defer p.Reset()
	p.SetLanguage(g)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		return nil
	}
	defer tree.Close()
	return queryDefs(lang, g, tree, src)
}

func defOf(n *sitter.Node, kind string, src []byte, parent string) (Def, bool) {
	nameNode := n.ChildByFieldName("name")
	if n.Type() == "impl_item" {
		nameNode = n.ChildByFieldName("type")
	}
	if n.Type() == "variable_declarator" {
		v := n.ChildByFieldName("value")
		if v == nil || (v.Type() != "arrow_function" && v.Type() != "function" && v.Type() != "function_expression") {
			return Def{}, false
		}
	}
	if nameNode == nil {
		return Def{}, false
	}
	d := Def{Name: nameNode.Content(src), Kind: kind, Parent: parent,
		Start: int(n.StartPoint().Row) + 1, End: int(n.EndPoint().Row) + 1}
	if parent != "" && kind == "func" {
		d.Kind = "method"
	}
	return d, d.Name != ""
}
