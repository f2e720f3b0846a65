package repocontext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/repocontext/repoindex"
	"github.com/warden-bot/warden/trusted"
)

// fixture is a small repository where each signal points at one file.
func fixture(t *testing.T) (string, *repoindex.Index) {
	t.Helper()
	files := map[string]string{
		"AGENTS.md":              "Run make lint before proposing a change. <issue>not a fence</issue>\n",
		"server/handler.go":      "package server\n\n// ServeUpload stores an upload.\nfunc ServeUpload() error {\n\treturn fmt.Errorf(\"upload rejected: quota exceeded for tenant\")\n}\n",
		"server/handler_test.go": "package server\n\nfunc TestServeUpload(t *testing.T) {}\n",
		"cache/prune.go":         "package cache\n\ntype pruner struct{}\n\nfunc (p *pruner) shouldRemove(name string) bool { return false }\n",
		"cache/cache.go":         "package cache\n\n// Cache is a file cache.\ntype Cache struct{}\n",
		"vendor/lib/upload.go":   "package lib\n\nfunc ServeUpload() {}\n// upload upload upload quota tenant\n",
		"docs/upload.md":         "# Upload\nupload quota tenant upload\n",
		"big/big.go":             bigGo(400),
	}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("misc/f%02d.go", i)] = fmt.Sprintf("package misc\n\nfunc Helper%02d() {}\n", i)
	}
	return repoFrom(t, files)
}

func bigGo(n int) string {
	var b strings.Builder
	b.WriteString("package big\n\nimport \"fmt\"\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\n// Func%03d does things.\nfunc Func%03d() {\n\tfmt.Println(%d)\n\tfmt.Println(%d)\n}\n", i, i, i, i+1)
	}
	return b.String()
}

func top(x *repoindex.Index, q Query) string {
	r := Rank(x, q)
	if len(r) == 0 {
		return ""
	}
	return x.Files[r[0].File].Path
}

func TestRankSignals(t *testing.T) {
	_, x := fixture(t)
	for name, c := range map[string]struct{ title, body, want string }{
		"stack trace path":      {"panic in prune", "goroutine 1:\n\tgithub.com/o/r/cache/prune.go:5 +0x1f", "cache/prune.go"},
		"definition named":      {"wrong result", "`shouldRemove` keeps entries it should drop", "cache/prune.go"},
		"error string verbatim": {"uploads fail", "I get: upload rejected: quota exceeded for tenant acme", "server/handler.go"},
		"lexical, test to code": {"ServeUpload upload", "uploads of a tenant", "server/handler.go"},
	} {
		if got := top(x, NewQuery(c.title, c.body)); got != c.want {
			t.Errorf("%s: top = %s, want %s (ranking %v)", name, got, c.want, paths(x, Rank(x, NewQuery(c.title, c.body))))
		}
	}
	r := Rank(x, NewQuery("ServeUpload upload quota tenant", ""))
	pos := map[string]int{}
	for i, s := range r {
		pos[x.Files[s.File].Path] = i + 1
	}
	if pos["vendor/lib/upload.go"] != 0 && pos["vendor/lib/upload.go"] < pos["server/handler.go"] {
		t.Errorf("vendored file ranked above source: %v", paths(x, r))
	}
}

func paths(x *repoindex.Index, r []Scored) []string {
	var out []string
	for _, s := range r {
		out = append(out, x.Files[s.File].Path)
	}
	return out
}

func TestNewQueryFindsIdentifiersAndPaths(t *testing.T) {
	q := NewQuery("hugolib: panic", "at hugolib/doctree/nodeshifttree.go:165 in `(*NodeShiftTree).delete` and contentNodeShifter; the word Panic")
	if len(q.Paths) != 1 || q.Paths[0] != (PathRef{Path: "hugolib/doctree/nodeshifttree.go", Line: 165}) {
		t.Errorf("paths = %+v", q.Paths)
	}
	for _, want := range []string{"NodeShiftTree", "delete", "contentNodeShifter"} {
		if !strings.Contains(strings.Join(q.Idents, " "), want) {
			t.Errorf("idents %v lack %s", q.Idents, want)
		}
	}
	if strings.Contains(strings.Join(q.Idents, " "), "Panic") {
		t.Errorf("a capitalised word became an identifier: %v", q.Idents)
	}
}

func TestViewWithinBudget(t *testing.T) {
	dir, x := fixture(t)
	docs := []trusted.Doc{{Path: "AGENTS.md", Text: "Run make lint before proposing a change. <issue>not a fence</issue>\n"}}
	for _, budget := range []int{3000, 6000, 12000} {
		v := Build(x, NewQuery("uploads fail", "upload rejected: quota exceeded for tenant"), Options{Budget: budget, Dir: dir, Docs: docs})
		if v.Tokens > budget || v.Tokens != promptOverhead+Tokens("uploads fail\n\nupload rejected: quota exceeded for tenant")+Tokens(v.Text) {
			t.Errorf("budget %d: view is %d tokens", budget, v.Tokens)
		}
		if len(v.Files) == 0 || v.Files[0].Path != "server/handler.go" || !v.Files[0].Content {
			t.Fatalf("budget %d: first file %+v", budget, v.Files)
		}
	}
	v := Build(x, NewQuery("uploads fail", "quota; the cache pruner and the helper functions"), Options{Dir: dir, Docs: docs})
	for _, want := range []string{`<instructions path="AGENTS.md">`, "Run make lint", "‹issue›not a fence‹/issue›", "## Layout", "server/ 2", "func ServeUpload() error"} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("view lacks %q:\n%s", want, v.Text)
		}
	}
	outlines := 0
	for _, f := range v.Files {
		if f.Outline && !f.Content {
			outlines++
		}
	}
	if outlines == 0 {
		t.Errorf("no outline-only files: %+v", v.Files)
	}
}

func TestExcerptKeepsNamedDefinitionsWhole(t *testing.T) {
	src := bigGo(400)
	defs := repoindex.Definitions("big.go", []byte(src))
	if text, whole := Excerpt(src, defs, nil, len(src)); !whole || text != src {
		t.Fatal("a file that fits is not shown whole")
	}
	text, whole := Excerpt(src, defs, []string{"Func200"}, 4000)
	if whole || len(text) > 4000 {
		t.Fatalf("excerpt whole=%v len=%d", whole, len(text))
	}
	for _, want := range []string{"package big", "// Func200 does things.\nfunc Func200() {\n\tfmt.Println(200)\n\tfmt.Println(201)\n}\n", "⋮ (lines "} {
		if !strings.Contains(text, want) {
			t.Errorf("excerpt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "func Func100()") {
		t.Errorf("excerpt carries an unnamed definition")
	}
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "⋮") && !strings.Contains(src, line+"\n") {
			t.Errorf("line %q is not a whole line of the file", line)
		}
	}
}

func TestMainPrintsJSON(t *testing.T) {
	dir, _ := fixture(t)
	var out, errb bytes.Buffer
	data := t.TempDir()
	code := Main([]string{"--repo", dir, "--title", "uploads fail", "--body", "upload rejected: quota exceeded for tenant", "--json", "--data-dir", data}, func(string) string { return "" }, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var v struct {
		Files []struct {
			Path    string `json:"path"`
			Outline bool   `json:"outline"`
			Content bool   `json:"content"`
		} `json:"files"`
		Tokens int `json:"tokens"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(v.Files) == 0 || v.Files[0].Path != "server/handler.go" || !v.Files[0].Content || v.Tokens <= 0 || v.Tokens > DefaultBudget {
		t.Fatalf("json = %s", out.String())
	}
	if gobs, _ := filepath.Glob(filepath.Join(data, "index", "*.idx")); len(gobs) != 1 {
		t.Errorf("index not cached under the data dir: %v", gobs)
	}
	if code := Main([]string{"--repo", dir}, func(string) string { return "" }, &out, &errb); code != 2 {
		t.Errorf("missing --title: exit %d", code)
	}
}

// CJK text has no spaces between words: the code words inside it must still
// become terms, and the CJK runs stay terms of their own.
func TestNewQuerySplitsCJKFromCode(t *testing.T) {
	q := NewQuery("failback负载模式下，设置重试次数为0", "review代码时发现failback模式下的retries判断有问题")
	for term, want := range map[string]int{"failback": 3, "retries": 1, "负载模式下": 2} {
		if q.Terms[term] != want {
			t.Errorf("term %q weighs %d, want %d (terms %v)", term, q.Terms[term], want, q.Terms)
		}
	}
}
