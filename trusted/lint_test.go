package trusted

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The lint: package trusted is the only code that reads the trusted inputs.
// A string literal that is one of their paths (a bare path, not a sentence
// that names one for a reader) or a call to a parser of them outside this
// package is a violation, unless allowed below with its reason. It runs with
// `make test` and `make lint`.

// trustedNames are the inputs' path names.
var trustedNames = []string{"warden.yml", "warden.yaml", "devcontainer", "AGENTS.md", "CLAUDE.md", "copilot-instructions", "CONTRIBUTING.md", "CODEOWNERS"}

// parsers are the functions that turn an input into a decision: only
// trusted may hand them what it read.
var parsers = map[string][]string{
	"github.com/warden-bot/warden/environment/toolchain": {"Resolve", "Infer"},
	"github.com/warden-bot/warden/modes":                 {"Parse"},
	"github.com/warden-bot/warden/github/codeowners":     {"Parse"},
}

// allowed are the legitimate mentions, by file and literal (or call), each
// with why it is not a read.
var allowed = map[string]string{
	"modes/config.go:.github/warden.yml":                               "a protected-path glob: the guards refuse edits to it",
	"modes/config.go:.github/warden.yaml":                              "a protected-path glob",
	"modes/config.go:.devcontainer/**":                                 "a protected-path glob",
	"modes/config.go:.devcontainer.json":                               "a protected-path glob",
	"environment/toolchain/resolve.go:.github/warden.yml":              "the name a plan's source is shown as; toolchain parses what trusted hands it",
	"environment/toolchain/resolve.go:.devcontainer/devcontainer.json": "the file Resolve looks for in the fs.FS trusted hands it (a trusted.Tree)",
	"environment/toolchain/resolve.go:.devcontainer.json":              "as above",
	"environment/toolchain/resolve.go:toolchain.Infer":                 "Resolve infers within the fs.FS it was handed",
	"lifecycle/headread.go:.github/warden.yml":                         "merges read the PR's base branch through GitHub's API (the default branch for Warden's PRs), never its head",
	"repocontext/repoindex/classify.go:CODEOWNERS":                     "a file name the index classifies as documentation for ranking; nothing is read or decided from it",
	"lifecycle/merge.go:modes.Parse":                                   "parses what headread.go read from the base branch through GitHub",
}

func TestOnlyTrustedReadsTrustedInputs(t *testing.T) {
	if v := violations(t, ".."); len(v) > 0 {
		t.Fatalf("trusted inputs read outside package trusted (read them through trusted.Read, or allow the mention in lint_test.go with a reason):\n%s", strings.Join(v, "\n"))
	}
}

// The lint catches a read it is shown.
func TestLintCatchesAReadOutsideTrusted(t *testing.T) {
	root := t.TempDir()
	src := "package evil\n\nimport (\n\t\"os\"\n\t\"github.com/warden-bot/warden/environment/toolchain\"\n)\n\n" +
		"var _, _ = os.ReadFile(\".github/warden.yml\")\nvar _ = toolchain.Resolve(os.DirFS(\".\"), toolchain.Declared{})\nvar _ = \"say AGENTS.md in a sentence\"\n"
	if err := os.MkdirAll(filepath.Join(root, "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "evil", "evil.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	v := violations(t, root)
	if len(v) != 2 || !strings.Contains(v[0], `".github/warden.yml"`) || !strings.Contains(v[1], "toolchain.Resolve") {
		t.Fatalf("violations = %q", v)
	}
}

// violations walks the non-test Go files under root outside package trusted
// and test/ (the fakes and harnesses, which run no repository).
func violations(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "trusted" || rel == "test" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		out = append(out, fileViolations(t, p, rel)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func fileViolations(t *testing.T, path, rel string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", rel, err)
	}
	imports := map[string]string{} // local name → path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	var out []string
	flag := func(pos token.Pos, what string) {
		if _, ok := allowed[rel+":"+what]; !ok {
			out = append(out, fset.Position(pos).String()+": "+strconv.Quote(what))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && namesInput(s) {
				flag(n.Pos(), s)
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && isParser(imports[id.Name], n.Sel.Name) {
				flag(n.Pos(), id.Name+"."+n.Sel.Name)
			}
		}
		return true
	})
	return out
}

// namesInput reports a literal that is a path naming an input: a bare
// token, not a sentence written for a reader.
func namesInput(s string) bool {
	if strings.ContainsAny(s, " \t\n") {
		return false
	}
	for _, n := range trustedNames {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

func isParser(pkg, fn string) bool {
	for _, f := range parsers[pkg] {
		if f == fn {
			return true
		}
	}
	return false
}
