package repocontext

import (
	"strings"
	"testing"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// A CLI repository where the docs, completions, man page and examples say
// "height" more often than the source that parses it.
func cliFixture(t *testing.T) *repoindex.Index {
	t.Helper()
	many := strings.Repeat("height percentage height lines terminal height\n", 6)
	files := map[string]string{
		"src/options.go":             "package src\n\n// parseHeight reads --height: lines or a percentage of the terminal.\nfunc parseHeight(s string) (int, bool) { return 0, false }\n",
		"src/terminal.go":            "package src\n\nfunc draw() {}\n",
		"shell/completions/fzf.bash": "complete -F _fzf fzf\n# " + many,
		"man/man1/fzf.1":             ".TH fzf 1\n" + many,
		"docs/options.md":            "# Options\n" + many,
		"examples/height/main.go":    "package main\n\n// height example\nfunc main() {}\n// " + many,
		"samples/height.txt":         many,
	}
	_, x := repoFrom(t, files)
	return x
}

// Documentation, completion, man-page, sample and example trees rank below
// the source unless the issue names them.
func TestPeripheralTreesRankBelowSource(t *testing.T) {
	x := cliFixture(t)
	if got := top(x, NewQuery("--height with a percentage draws too many lines", "The terminal height percentage is ignored.")); got != "src/options.go" {
		t.Errorf("top = %s, want src/options.go (ranking %v)", got, paths(x, Rank(x, NewQuery("--height with a percentage draws too many lines", "The terminal height percentage is ignored."))))
	}
	for issue, want := range map[string]string{
		"bash completion does not offer --height percentage": "shell/completions/fzf.bash",
		"man page says height lines but means percentage":    "man/man1/fzf.1",
		"the height example prints nothing in the terminal":  "examples/height/main.go",
	} {
		if got := top(x, NewQuery(issue, "height height")); got != want {
			t.Errorf("%q: top = %s, want %s (ranking %v)", issue, got, want, paths(x, Rank(x, NewQuery(issue, "height height"))))
		}
	}
}

func TestPeriphery(t *testing.T) {
	for p, want := range map[string]string{
		"doc/guide.md": "doc", "docs/api/x.go": "doc", "shell/completions/_fzf": "completion", "man/man1/fzf.1": "man",
		"fzf.1.txt": "man", "samples/a.py": "sample", "examples/b/main.rs": "example", "src/main.rs": "", "src/example.go": "",
		"documentation.go": "", "packages/website/src/components/lib/markdown.ts": "doc", "src/xdocs/config.xml": "doc",
		"src/xdocs-examples/java/org/Example1.java": "doc", "api_docs/x.py": "doc", "lib/site-packages/x.py": "",
		"src/man-in-the-middle/proxy.go": "",
	} {
		if got := periphery(p); got != want {
			t.Errorf("periphery(%s) = %q, want %q", p, got, want)
		}
	}
}

// A passing mention — a bug template's "I have read the documentation",
// prose's "for example", a word that only starts like one ("docker",
// "<!DOCTYPE") — does not name a peripheral tree; the title, or naming it
// twice, does.
func TestPassingMentionDoesNotNameTheTree(t *testing.T) {
	x := cliFixture(t)
	q := NewQuery("height percentage draws too many lines", "For example, the terminal height percentage is ignored.")
	if got := top(x, q); got != "src/options.go" {
		t.Errorf("top = %s, want src/options.go (ranking %v)", got, paths(x, Rank(x, q)))
	}
	for _, c := range []struct {
		title, body, tree string
		want              bool
	}{
		{"height is wrong", "- [x] I have read the documentation.\nheight", "doc", false},
		{"height is wrong", "in docker, with <!DOCTYPE html>", "doc", false},
		{"height is wrong", "the download completely fails", "completion", false},
		{"docs: height is wrong", "", "doc", true},
		{"height is wrong", "The docs say lines; the documentation is wrong.", "doc", true},
		{"bash completion lacks --height", "", "completion", true},
	} {
		if got := names(NewQuery(c.title, c.body), c.tree); got != c.want {
			t.Errorf("names(%q, %q, %s) = %v, want %v", c.title, c.body, c.tree, got, c.want)
		}
	}
}
