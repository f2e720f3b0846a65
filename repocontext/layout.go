package repocontext

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// layout writes a directory summary instead of a truncated file list: every
// top-level directory, and the directories of the top-ranked files, with
// their file counts and main languages.
func (w *writer) layout(ranked []Scored, budget int) {
	type stat struct {
		n     int
		langs map[string]int
	}
	dirs := map[string]*stat{}
	for _, f := range w.x.Files {
		if f.Kind == repoindex.Vendored || f.Kind == repoindex.Binary {
			continue
		}
		d := path.Dir(f.Path)
		for {
			st := dirs[d]
			if st == nil {
				st = &stat{langs: map[string]int{}}
				dirs[d] = st
			}
			st.n++
			if f.Lang != "" {
				st.langs[f.Lang]++
			}
			if d == "." {
				break
			}
			d = path.Dir(d)
		}
	}
	wanted := map[string]bool{".": true}
	for d := range dirs {
		if !strings.Contains(d, "/") {
			wanted[d] = true
		}
	}
	for i, s := range ranked {
		if i >= 15 {
			break
		}
		for d := path.Dir(w.x.Files[s.File].Path); d != "."; d = path.Dir(d) {
			wanted[d] = true
		}
	}
	names := make([]string, 0, len(wanted))
	for d := range wanted {
		if dirs[d] != nil {
			names = append(names, d)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "## Layout\n%d files. Directories (files below each, main languages):\n", len(w.x.Files))
	for _, d := range names {
		line := fmt.Sprintf("%s%s/ %d%s\n", strings.Repeat("  ", strings.Count(d, "/")+boolInt(d != ".")), d, dirs[d].n, langs(dirs[d].langs))
		if Tokens(b.String()+line) > budget {
			b.WriteString("…\n")
			break
		}
		b.WriteString(line)
	}
	w.add(b.String() + "\n")
}

func langs(m map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range m {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(a, b int) bool { return l[a].v > l[b].v || l[a].v == l[b].v && l[a].k < l[b].k })
	var parts []string
	for i, e := range l {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", e.k, e.v))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
