package docs

import (
	"slices"
	"strings"
	"testing"
)

// A small page in the real format, for planting violations one at a time.
const tinyPage = "# t\n## Package map\n### 1. leaves\n" +
	"| package | its one concern | may import | imports (go list) |\n|---|---|---|---|\n" +
	"| `outcome` | vocabulary | — | — |\n" +
	"| `sandbox/egress` | proxy | — | — |\n" +
	"### 2. parts\n" +
	"| `sandbox` | profile | `sandbox/...` | `sandbox/egress` |\n" +
	"| `agent` | models | `outcome`, `sandbox` | `outcome` |\n" +
	"### 3. spine\n" +
	"| `pipeline` | stages | layers above | `agent` |\n" +
	"## Where to start\n| `notapackage` | ignored outside the map | — | — |\n"

func tinyPkgs() map[string]pkgInfo {
	return map[string]pkgInfo{
		"outcome":        {},
		"sandbox/egress": {},
		"sandbox":        {imports: []string{"sandbox/egress"}},
		"agent":          {imports: []string{"outcome"}},
		"pipeline":       {imports: []string{"agent"}},
	}
}

func tinyRows(t *testing.T, page string) []row {
	t.Helper()
	rows, err := parseMap(strings.Split(page, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestTinyPageAgrees(t *testing.T) {
	if p := check(tinyRows(t, tinyPage), tinyPkgs()); len(p) > 0 {
		t.Fatalf("want no disagreement, got:\n%s", strings.Join(p, "\n"))
	}
}

// Each planted change must produce the one disagreement named.
func TestCheckCatchesEachViolation(t *testing.T) {
	cases := []struct {
		name, want string
		page       func(string) string
		pkgs       func(map[string]pkgInfo)
	}{
		{name: "import the rule forbids", want: "`agent` imports `sandbox/egress`, which its rule",
			pkgs: func(m map[string]pkgInfo) { m["agent"] = pkgInfo{imports: []string{"outcome", "sandbox/egress"}} }},
		{name: "import below", want: "`sandbox` imports `agent`, which is below it",
			pkgs: func(m map[string]pkgInfo) { m["sandbox"] = pkgInfo{imports: []string{"agent", "sandbox/egress"}} }},
		{name: "same layer needs naming", want: "`agent` imports `sandbox`, which its rule",
			page: func(s string) string { return strings.Replace(s, "`outcome`, `sandbox` |", "`outcome` |", 1) },
			pkgs: func(m map[string]pkgInfo) { m["agent"] = pkgInfo{imports: []string{"outcome", "sandbox"}} }},
		{name: "layers above is not the same layer", want: "`pipeline` imports `lifecycle`, which its rule",
			page: func(s string) string {
				return strings.Replace(s, "| `pipeline`", "| `lifecycle` | after | — | — |\n| `pipeline`", 1)
			},
			pkgs: func(m map[string]pkgInfo) {
				m["lifecycle"] = pkgInfo{}
				m["pipeline"] = pkgInfo{imports: []string{"agent", "lifecycle"}}
			}},
		{name: "listed but gone", want: "the page lists `sandbox/egress`, which go list does not know",
			pkgs: func(m map[string]pkgInfo) { delete(m, "sandbox/egress") }},
		{name: "package not on the page", want: "package `environment` is not on the page",
			pkgs: func(m map[string]pkgInfo) { m["environment"] = pkgInfo{} }},
		{name: "import not on the page", want: "`agent` imports `test/fakegithub`, which is not on the page",
			pkgs: func(m map[string]pkgInfo) { m["agent"] = pkgInfo{imports: []string{"outcome", "test/fakegithub"}} }},
		{name: "stale imports column", want: "`pipeline`'s imports column says `agent`, go list says —",
			pkgs: func(m map[string]pkgInfo) { m["pipeline"] = pkgInfo{} }},
		{name: "two rows", want: "`agent` has two rows",
			page: func(s string) string {
				return strings.Replace(s, "| `pipeline`", "| `agent` | again | — | `outcome` |\n| `pipeline`", 1)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, pkgs := tinyPage, tinyPkgs()
			if c.page != nil {
				page = c.page(page)
			}
			if c.pkgs != nil {
				c.pkgs(pkgs)
			}
			p := check(tinyRows(t, page), pkgs)
			if !slices.ContainsFunc(p, func(l string) bool { return strings.Contains(l, c.want) }) {
				t.Fatalf("want a disagreement containing %q, got:\n%s", c.want, strings.Join(p, "\n"))
			}
		})
	}
}

// -update adds a new package where it can stand (right below the lowest row
// it imports) as a TODO the check still refuses, and refreshes imports.
func TestUpdatePlacesANewPackageAndRefreshesImports(t *testing.T) {
	lines := strings.Split(tinyPage, "\n")
	pkgs := tinyPkgs()
	pkgs["environment"] = pkgInfo{imports: []string{"sandbox"}}
	pkgs["agent"] = pkgInfo{imports: []string{"outcome", "sandbox"}}
	out := updateMap(lines, tinyRows(t, tinyPage), pkgs)
	rows := tinyRows(t, strings.Join(out, "\n"))
	var order []string
	for _, r := range rows {
		order = append(order, r.pkg)
	}
	if got, want := strings.Join(order, " "), "outcome sandbox/egress sandbox environment agent pipeline"; got != want {
		t.Fatalf("rows after update: %s, want %s", got, want)
	}
	p := check(rows, pkgs)
	if len(p) != 1 || !strings.Contains(p[0], "`environment` needs its one concern written") {
		t.Fatalf("want only the TODO refused, got:\n%s", strings.Join(p, "\n"))
	}
}
