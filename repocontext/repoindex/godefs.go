package repoindex

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// goDefs parses Go source with go/parser and returns its functions, methods,
// types and top-level values with line ranges, plus its string literals.
func goDefs(src []byte) (defs []Def, strs []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution|parser.ParseComments)
	if f == nil {
		return nil, nil
	}
	_ = err // a partial tree still names most definitions
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			def := Def{Name: d.Name.Name, Kind: "func", Start: line(d.Pos()), End: line(d.End())}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				def.Kind, def.Parent = "method", recvName(d.Recv.List[0].Type)
			}
			if d.Doc != nil {
				def.Doc = line(d.Doc.Pos())
			}
			defs = append(defs, def)
		case *ast.GenDecl:
			defs = append(defs, genDefs(d, line)...)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && len(s) >= minLiteral {
				strs = append(strs, s)
			}
		}
		return true
	})
	return defs, strs
}

func genDefs(d *ast.GenDecl, line func(token.Pos) int) []Def {
	var defs []Def
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			start := line(s.Pos())
			if len(d.Specs) == 1 {
				start = line(d.Pos())
			}
			defs = append(defs, Def{Name: s.Name.Name, Kind: "type", Start: start, End: line(s.End())})
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.Name == "_" {
					continue
				}
				kind := "var"
				if d.Tok == token.CONST {
					kind = "const"
				}
				defs = append(defs, Def{Name: n.Name, Kind: kind, Start: line(s.Pos()), End: line(s.End())})
			}
		}
	}
	return defs
}

func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return strings.TrimSpace("")
		}
	}
}
