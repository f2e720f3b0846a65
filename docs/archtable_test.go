// Package docs holds the tests that keep the pages under docs/ true to the code.
// It has no non-test files: nothing imports it.
package docs

import (
	"fmt"
	"slices"
	"strings"
)

// row is one package of the page's map: where it sits (layer, then line),
// what it may import (the rule) and what it imports (the fact, from go list).
type row struct {
	pkg     string   // import path under the module, e.g. "agent/meter"
	layer   int      // 1 for the first "### " heading of the map
	line    int      // index in the page's lines, for the order rule and -update
	concern string   // the "its one concern" cell
	may     []string // the "may import" terms; see allows
	imports []string // the "imports (go list)" cell as the page states it
}

// aboveTerm in a row's "may import" cell lets it import any package of an
// earlier layer: the layering is the rule, the narrower rows are exceptions.
const aboveTerm = "layers above"

// mapHeading starts the part of the page the test reads; it ends at the next "## ".
const mapHeading = "## Package map"

// parseMap reads the map's tables. A row is a line that starts with "| `".
func parseMap(lines []string) ([]row, error) {
	var rows []row
	in, layer := false, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == mapHeading
		case !in:
		case strings.HasPrefix(l, "### "):
			layer++
		case strings.HasPrefix(l, "| `"):
			r, err := parseRow(l)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			if layer == 0 {
				return nil, fmt.Errorf("line %d: row of %s before the first layer heading", i+1, r.pkg)
			}
			r.layer, r.line = layer, i
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no package rows under %q", mapHeading)
	}
	return rows, nil
}

// parseRow reads "| `pkg` | concern | may | imports |". The concern may not
// hold a "|": a fifth cell would be ambiguous.
func parseRow(l string) (row, error) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
	if len(cells) != 4 {
		return row{}, fmt.Errorf("want 4 cells (package, concern, may import, imports), got %d: %s", len(cells), l)
	}
	pkgs := terms(cells[0])
	if len(pkgs) != 1 {
		return row{}, fmt.Errorf("package cell %q names %d packages", cells[0], len(pkgs))
	}
	return row{
		pkg:     pkgs[0],
		concern: strings.TrimSpace(cells[1]),
		may:     terms(cells[2]),
		imports: terms(cells[3]),
	}, nil
}

// terms splits a cell into its backticked names, plus aboveTerm when the cell
// says it. "—" and an empty cell are no terms.
func terms(cell string) []string {
	var out []string
	if strings.Contains(cell, aboveTerm) {
		out = append(out, aboveTerm)
	}
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, strings.TrimSpace(parts[i]))
	}
	return out
}

// allows says whether a row's may-import terms admit dep. A term is a package
// path, or "group/..." for the group and every package under it (Go's
// pattern), or aboveTerm for any package of an earlier layer.
func (r row) allows(dep row) bool {
	for _, t := range r.may {
		switch {
		case t == aboveTerm && dep.layer < r.layer:
			return true
		case strings.HasSuffix(t, "/..."):
			g := strings.TrimSuffix(t, "/...")
			if dep.pkg == g || strings.HasPrefix(dep.pkg, g+"/") {
				return true
			}
		case t == dep.pkg:
			return true
		}
	}
	return false
}

// importsCell renders the "imports (go list)" cell.
func importsCell(deps []string) string {
	if len(deps) == 0 {
		return "—"
	}
	ds := slices.Clone(deps)
	slices.Sort(ds)
	return "`" + strings.Join(ds, "`, `") + "`"
}

// withImports returns the row's line with its last cell replaced.
func withImports(line string, deps []string) string {
	t := strings.TrimRight(strings.TrimSpace(line), "|")
	i := strings.LastIndex(t, "|")
	return t[:i+1] + " " + importsCell(deps) + " |"
}
