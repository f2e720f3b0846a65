package repoindex

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Definitions are found by one pass of a tree cursor. Reaching a node's
// i-th child by index (Node.NamedChild) walks its siblings again each
// time, so a module of a thousand statements cost half a million steps;
// the cursor moves to the next sibling in one. Node types are compared by
// grammar symbol, not by name, which cost a C string per node.

var (
	symbolsMu sync.Mutex
	symbols   = map[string]map[sitter.Symbol]string{}
)

// symbolKinds maps the symbols of lang's grammar g named in defKinds to
// their kind, once per language (a grammar's GetLanguage returns a new
// pointer on every call, so the name is the key).
func symbolKinds(lang string, g *sitter.Language) map[sitter.Symbol]string {
	symbolsMu.Lock()
	defer symbolsMu.Unlock()
	if m, ok := symbols[lang]; ok {
		return m
	}
	m := map[sitter.Symbol]string{}
	for s := sitter.Symbol(0); uint32(s) < g.SymbolCount(); s++ {
		if kind, ok := defKinds[g.SymbolName(s)]; ok && g.SymbolType(s) == sitter.SymbolTypeRegular {
			m[s] = kind
		}
	}
	symbols[lang] = m
	return m
}

// maxDefDepth: definitions nested deeper than this are not looked for.
const maxDefDepth = 60

// cursorDefs lists the tree's definitions in document order, each with the
// name of the nearest enclosing definition as its parent.
func cursorDefs(lang string, g *sitter.Language, tree *sitter.Tree, src []byte) []Def {
	kinds := symbolKinds(lang, g)
	c := sitter.NewTreeCursor(tree.RootNode())
	defer c.Close()
	parents := []string{""} // parents[d]: the enclosing definition of nodes at depth d
	depth := 0
	var defs []Def
	for {
		n := c.CurrentNode()
		own := parents[depth]
		if kind, ok := kinds[n.Symbol()]; ok {
			if d, ok := defOf(n, kind, src, own); ok {
				defs = append(defs, d)
				own = d.Name
			}
		}
		if depth < maxDefDepth && c.GoToFirstChild() {
			depth++
			parents = append(parents[:depth], own)
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return defs
			}
			depth--
		}
	}
}
