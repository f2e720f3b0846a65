//go:build cgo

package repoindex

import (
	"fmt"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Definitions are found by a tree-sitter query: the query cursor walks the
// tree in C and hands back only the definition nodes. Walking it from Go
// (a tree cursor) cost four cgo calls per node, more than the parse itself
// on large Rust files; a query costs one per definition.

type defQuery struct {
	q     *sitter.Query
	kinds []string // by pattern index
}

var (
	queriesMu sync.Mutex
	queries   = map[string]*defQuery{}
)

// queryFor is the query matching lang's definition node types (the names
// of defKinds its grammar g has), built once per language: a grammar's
// GetLanguage returns a new pointer on every call, so the name is the key.
// A query is immutable and shared by the parsing goroutines, each with its
// own cursor.
func queryFor(lang string, g *sitter.Language) (*defQuery, error) {
	queriesMu.Lock()
	defer queriesMu.Unlock()
	if dq, ok := queries[lang]; ok {
		return dq, nil
	}
	dq := &defQuery{}
	seen := map[string]bool{}
	var pat strings.Builder
	for s := sitter.Symbol(0); uint32(s) < g.SymbolCount(); s++ {
		name := g.SymbolName(s)
		kind, ok := defKinds[name]
		if !ok || seen[name] || g.SymbolType(s) != sitter.SymbolTypeRegular {
			continue
		}
		seen[name] = true
		fmt.Fprintf(&pat, "(%s) @d\n", name)
		dq.kinds = append(dq.kinds, kind)
	}
	q, err := sitter.NewQuery([]byte(pat.String()), g)
	if err != nil {
		return nil, fmt.Errorf("definition query of %s: %w", lang, err)
	}
	dq.q = q
	queries[lang] = dq
	return dq, nil
}

// queryDefs lists the tree's definitions in document order, each with the
// name of the nearest enclosing definition as its parent. The query yields
// nodes in pre-order, so the enclosing definitions are a stack of byte
// ranges.
func queryDefs(lang string, g *sitter.Language, tree *sitter.Tree, src []byte) []Def {
	dq, err := queryFor(lang, g)
	if err != nil {
		return nil
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(dq.q, tree.RootNode())
	type open struct {
		end  uint32
		name string
	}
	var stack []open
	var defs []Def
	for {
		m, ok := qc.NextMatch()
		if !ok {
			return defs
		}
		for _, c := range m.Captures {
			n := c.Node
			for len(stack) > 0 && stack[len(stack)-1].end <= n.StartByte() {
				stack = stack[:len(stack)-1]
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].name
			}
			if d, ok := defOf(n, dq.kinds[m.PatternIndex], src, parent); ok {
				defs = append(defs, d)
				stack = append(stack, open{n.EndByte(), d.Name})
			}
		}
	}
}
