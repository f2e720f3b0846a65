package edit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unifiedDiff writes a block as the one-hunk unified diff a model would
// send: the lines SEARCH and REPLACE share at the edges are context, and the
// header carries the true line of the intended region — more than a block
// says, and the most a line-number tool could hope for.
func unifiedDiff(c corpusCase, path string) string {
	s, r := splitText(c.Search), splitText(c.Replace)
	pre := 0
	for pre < min(len(s), len(r)) && s[pre] == r[pre] {
		pre++
	}
	suf := 0
	for suf < min(len(s), len(r))-pre && s[len(s)-1-suf] == r[len(r)-1-suf] {
		suf++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n", path, path, c.Line, len(s), c.Line, len(r))
	hunk := func(mark string, lines []string) {
		for _, l := range lines {
			b.WriteString(mark + l + "\n")
		}
	}
	hunk(" ", s[:pre])
	hunk("-", s[pre:len(s)-suf])
	hunk("+", r[pre:len(r)-suf])
	hunk(" ", s[len(s)-suf:])
	if c.CRLFBlock {
		return strings.ReplaceAll(b.String(), "\n", "\r\n")
	}
	return b.String()
}

// external applies the diff of c with a command run in dir/w and returns
// the file the diff names (which, for an unsafe path, lies outside dir/w).
func external(tb testing.TB, dir string, c corpusCase, name string, args ...string) string {
	work := filepath.Join(dir, "w")
	file, diff := filepath.Join(work, c.path()), filepath.Join(dir, "edit.diff")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(c.Before), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(diff, []byte(unifiedDiff(c, c.path())), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(name, append(args, diff)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+dir)
	_ = cmd.Run() // a refusal exits non-zero; the file says what happened
	got, err := os.ReadFile(file)
	if err != nil {
		got = nil // deleted or moved: not the file asked for
	}
	for _, p := range []string{work, filepath.Join(dir, strings.Split(filepath.ToSlash(filepath.Clean(filepath.Join("w", c.path()))), "/")[0])} {
		if err := os.RemoveAll(p); err != nil {
			tb.Fatal(err)
		}
	}
	return string(got)
}

type tool struct {
	id, name string
	run      func(corpusCase) string
	diff     bool // reads the edit as a unified diff
}

func tools(tb testing.TB) []tool {
	for _, bin := range []string{"patch", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			tb.Fatalf("the accuracy benchmark compares against %s, which is not installed: %v", bin, err)
		}
	}
	pd, gd := tb.TempDir(), tb.TempDir()
	return []tool{
		{"warden", "Warden (blocks)", applyBlock, false},
		{"warden-diff", "Warden (unified diffs)", applyDiff, true},
		{"patch", "patch --fuzz=3", func(c corpusCase) string {
			return external(tb, pd, c, "patch", "-p1", "--fuzz=3", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-", "-s", "-i")
		}, true},
		{"git", "git apply", func(c corpusCase) string { return external(tb, gd, c, "git", "apply") }, true},
		{"git-u0", "git apply --unidiff-zero", func(c corpusCase) string { return external(tb, gd, c, "git", "apply", "--unidiff-zero") }, true},
	}
}

// score is one tool's run over the corpus.
type score struct {
	tally
	spent  time.Duration
	wrongs int
	blanks int // wrong results that differ from the expected file only in whitespace
}

func (t tool) score(cs []corpusCase) score {
	s, start := score{tally: tally{}}, time.Now()
	for _, c := range cs {
		if t.diff && c.Cat == "divider_ambiguous" {
			continue // a diff has no divider to misread
		}
		got := t.run(c)
		v := judge(c, got, t.diff)
		s.add(c.Cat, v)
		if v == wrong {
			s.wrongs++
			if whitespaceOnly(got, c.Want) {
				s.blanks++
			}
		}
	}
	s.spent = time.Since(start)
	return s
}

// BenchmarkEditAccuracy runs the corpus through Warden's ladder (as blocks
// and as unified diffs), GNU patch --fuzz=3 and git apply in one run, and
// prints per category correct / refused / wrong. Time per block is reported
// against git apply measured in the same run (it includes starting git, as
// applying a reply with git would).
func BenchmarkEditAccuracy(b *testing.B) {
	cs, ts := loadCorpus(b), tools(b)
	scores := make([]score, len(ts))
	spent := make([]time.Duration, len(ts))
	for b.Loop() {
		for i, t := range ts {
			scores[i] = t.score(cs)
			spent[i] += scores[i].spent
		}
	}
	names, tallies, notes := make([]string, len(ts)), make([]tally, len(ts)), ""
	for i, t := range ts {
		names[i], tallies[i] = t.name, scores[i].tally
		b.ReportMetric(float64(scores[i].wrongs), "wrong-"+t.id)
		notes += fmt.Sprintf("\n%s: %d wrong, %d of them only in whitespace", t.name, scores[i].wrongs, scores[i].blanks)
	}
	per := func(i int) float64 { return float64(spent[i].Nanoseconds()) / float64(b.N*len(cs)) }
	b.ReportMetric(per(0), "ns/block-warden")
	b.ReportMetric(per(3), "ns/block-gitapply")
	b.ReportMetric(per(3)/per(0), "gitapply/warden")
	// Printed, not logged: testing cuts benchmark logs at ten lines.
	fmt.Printf("\n%d blocks from %d files (%s); cells are correct / refused / wrong\n\n%s%s\n", len(cs), countFiles(cs), langs(cs), table(cs, names, tallies), notes)
	fmt.Printf("time per block: Warden %.1f µs, patch %.1f µs, git apply %.1f µs; git apply / Warden = %.0f×\n\n",
		per(0)/1e3, per(2)/1e3, per(3)/1e3, per(3)/per(0))
}

// whitespaceOnly: the right lines in the right place, with other blanks.
func whitespaceOnly(got, want string) bool {
	g, w := splitText(got), splitText(want)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if strings.TrimSpace(g[i]) != strings.TrimSpace(w[i]) {
			return false
		}
	}
	return true
}

// langs counts the corpus's files per source.
func langs(cs []corpusCase) string {
	per := map[string]map[string]bool{}
	for _, c := range cs {
		l := strings.SplitN(c.Src, "/", 2)[0]
		if per[l] == nil {
			per[l] = map[string]bool{}
		}
		per[l][c.Src] = true
	}
	var out []string
	for _, s := range append(sources, dividerSource) {
		out = append(out, fmt.Sprintf("%s %d", s.lang, len(per[s.lang])))
	}
	return strings.Join(out, ", ")
}

func countFiles(cs []corpusCase) int {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.Src] = true
	}
	return len(m)
}
