package githubapp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sig is a method's name and its parameter and result types, rendered
// without the github package's qualifier.
type sig struct{ name, params, results string }

// gogithub reads go-github's own source: each service method's operations
// (its `//meta:operation` lines) and signature.
func gogithub(t *testing.T) (ops map[string][]string, sigs map[sig][]string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/go-github/v60").Output()
	if err != nil {
		t.Fatalf("locate go-github's source: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github")
	fset := token.NewFileSet()
	ops, sigs = map[string][]string{}, map[sig][]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || !fd.Name.IsExported() {
				continue
			}
			recv := strings.TrimPrefix(exprString(fd.Recv.List[0].Type, ""), "*")
			if !strings.HasSuffix(recv, "Service") {
				continue
			}
			key := recv + "." + fd.Name.Name
			for _, c := range docLines(fd) {
				if op, ok := strings.CutPrefix(c, "//meta:operation "); ok {
					ops[key] = append(ops[key], op)
				}
			}
			s := signature(fd.Name.Name, fd.Type, "")
			sigs[s] = append(sigs[s], key)
		}
	}
	return ops, sigs
}

func docLines(fd *ast.FuncDecl) []string {
	if fd.Doc == nil {
		return nil
	}
	var out []string
	for _, c := range fd.Doc.List {
		out = append(out, c.Text)
	}
	return out
}

// exprString renders a type; qual is the qualifier dropped ("github.").
func exprString(e ast.Expr, qual string) string {
	var b strings.Builder
	writeExpr(&b, e)
	return strings.ReplaceAll(b.String(), qual, "")
}

func writeExpr(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Ident:
		b.WriteString(e.Name)
	case *ast.StarExpr:
		b.WriteString("*")
		writeExpr(b, e.X)
	case *ast.SelectorExpr:
		writeExpr(b, e.X)
		b.WriteString("." + e.Sel.Name)
	case *ast.ArrayType:
		b.WriteString("[]")
		writeExpr(b, e.Elt)
	case *ast.MapType:
		b.WriteString("map[")
		writeExpr(b, e.Key)
		b.WriteString("]")
		writeExpr(b, e.Value)
	case *ast.Ellipsis:
		b.WriteString("...")
		writeExpr(b, e.Elt)
	case *ast.InterfaceType:
		b.WriteString("interface{}")
	default:
		b.WriteString("?")
	}
}

func fields(fl *ast.FieldList, qual string) string {
	if fl == nil {
		return ""
	}
	var parts []string
	for _, f := range fl.List {
		n := max(1, len(f.Names))
		for range n {
			parts = append(parts, exprString(f.Type, qual))
		}
	}
	return strings.Join(parts, ",")
}

func signature(name string, ft *ast.FuncType, qual string) sig {
	return sig{name, fields(ft.Params, qual), fields(ft.Results, qual)}
}
