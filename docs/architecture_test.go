package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/architecture.md's imports column from go list and add missing packages as TODO rows")

const (
	page   = "architecture.md"
	module = "github.com/warden-bot/warden"
)

// pkgInfo is what the checks need of one package: its Warden imports from
// non-test files only (a test may import any fake).
type pkgInfo struct {
	imports []string
}

// TestArchitecturePageMatchesGoList keeps the package map of architecture.md
// true: every package on it exists, every package exists on it, each one's
// imports are within its "may import" rule and above it on the page, and the
// imports column is what go list says.
func TestArchitecturePageMatchesGoList(t *testing.T) {
	pkgs, err := goList()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	rows, err := parseMap(lines)
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	if *update {
		lines = updateMap(lines, rows, pkgs)
		if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		if rows, err = parseMap(lines); err != nil {
			t.Fatal(err)
		}
	}
	if p := check(rows, pkgs); len(p) > 0 {
		t.Fatalf("docs/%s disagrees with the code (go test ./docs -update rewrites the imports column; the rules are yours to change):\n%s",
			page, strings.Join(p, "\n"))
	}
}

// check returns one line per disagreement between the page's rows and pkgs.
func check(rows []row, pkgs map[string]pkgInfo) []string {
	var p []string
	byPkg := map[string]row{}
	for _, r := range rows {
		if _, dup := byPkg[r.pkg]; dup {
			p = append(p, fmt.Sprintf("`%s` has two rows", r.pkg))
		}
		byPkg[r.pkg] = r
	}
	for _, name := range sortedKeys(pkgs) {
		if _, ok := byPkg[name]; !ok {
			p = append(p, fmt.Sprintf("package `%s` is not on the page (-update adds a TODO row for you to place)", name))
		}
	}
	for _, r := range rows {
		info, ok := pkgs[r.pkg]
		if !ok {
			p = append(p, fmt.Sprintf("the page lists `%s`, which go list does not know", r.pkg))
			continue
		}
		p = append(p, checkRow(r, info, byPkg)...)
	}
	return p
}

// checkRow checks one existing package's row against its imports.
func checkRow(r row, info pkgInfo, byPkg map[string]row) []string {
	var p []string
	if r.concern == "" || strings.HasPrefix(r.concern, "TODO") {
		p = append(p, fmt.Sprintf("`%s` needs its one concern written", r.pkg))
	}
	for _, d := range info.imports {
		dep, ok := byPkg[d]
		switch {
		case !ok:
			p = append(p, fmt.Sprintf("`%s` imports `%s`, which is not on the page (cmd/… and test/… never are)", r.pkg, d))
		case dep.line > r.line:
			p = append(p, fmt.Sprintf("`%s` imports `%s`, which is below it on the page", r.pkg, d))
		case !r.allows(dep):
			p = append(p, fmt.Sprintf("`%s` imports `%s`, which its rule (may import: %s) does not allow", r.pkg, d, strings.Join(r.may, ", ")))
		}
	}
	if got := importsCell(info.imports); got != importsCell(r.imports) {
		p = append(p, fmt.Sprintf("`%s`'s imports column says %s, go list says %s", r.pkg, importsCell(r.imports), got))
	}
	return p
}

// updateMap rewrites each row's imports cell and adds a TODO row for each
// package the page lacks, right below the lowest row it imports: as high as
// its imports let it stand, so the packages that import it stay below it.
func updateMap(lines []string, rows []row, pkgs map[string]pkgInfo) []string {
	out := slices.Clone(lines)
	lineOf := map[string]int{}
	firstLeaf := rows[0].line
	for _, r := range rows {
		if info, ok := pkgs[r.pkg]; ok {
			out[r.line] = withImports(out[r.line], info.imports)
		}
		lineOf[r.pkg] = r.line
		if r.layer == 1 {
			firstLeaf = r.line
		}
	}
	inserts := map[int][]string{}
	for _, name := range sortedKeys(pkgs) {
		if _, ok := lineOf[name]; ok {
			continue
		}
		at := firstLeaf // no Warden import: the end of the leaves
		for _, d := range pkgs[name].imports {
			if l, ok := lineOf[d]; ok {
				at = max(at, l)
			}
		}
		inserts[at] = append(inserts[at], fmt.Sprintf("| `%s` | TODO: its one concern | %s | %s |",
			name, importsCell(pkgs[name].imports), importsCell(pkgs[name].imports)))
	}
	for i := len(out) - 1; i >= 0; i-- {
		if add := inserts[i]; len(add) > 0 {
			out = slices.Insert(out, i+1, add...)
		}
	}
	return out
}

// goList returns every non-test Warden package outside test/ with its Warden
// imports, keyed by path under the module.
func goList() (map[string]pkgInfo, error) {
	cmd := exec.Command("go", "list", "-json=ImportPath,GoFiles,Imports", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	pkgs := map[string]pkgInfo{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			GoFiles    []string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		name := local(p.ImportPath)
		if len(p.GoFiles) == 0 || name == "test" || strings.HasPrefix(name, "test/") {
			continue // test-only packages (docs, scripts, test/...) are not on the map
		}
		var deps []string
		for _, d := range p.Imports {
			if d == module || strings.HasPrefix(d, module+"/") {
				deps = append(deps, local(d))
			}
		}
		pkgs[name] = pkgInfo{imports: deps}
	}
}

// local is an import path under the module, "" for the module's root.
func local(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

func sortedKeys(m map[string]pkgInfo) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
