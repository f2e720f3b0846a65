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

// external applies the diff of c with a command in dir and returns the file.
func external(tb testing.TB, dir string, c corpusCase, name string, args ...string) string {
	file, diff := filepath.Join(dir, "f.go"), filepath.Join(dir, "edit.diff")
	if err := os.WriteFile(file, []byte(c.Before), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(diff, []byte(unifiedDiff(c, "f.go")), 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(name, append(args, diff)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	_ = cmd.Run() // a refusal exits non-zero; the file says what happened
	got, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	return string(got)
}

type tool struct {
	id, name string
	run      func(corpusCase) string
}

func tools(tb testing.TB) []tool {
	for _, bin := range []string{"patch", "git"} {
		if _, err := exec.LookPath(bin); err != nil {
			tb.Fatalf("the accuracy benchmark compares against %s, which is not installed: %v", bin, err)
		}
	}
	pd, gd := tb.TempDir(), tb.TempDir()
	return []tool{
		{"warden", "Warden (blocks)", applyBlock},
		{"warden-diff", "Warden (unified diffs)", applyDiff},
		{"patch", "patch --fuzz=3", func(c corpusCase) string {
			return external(tb, pd, c, "patch", "-p1", "--fuzz=3", "--batch", "--forward", "--no-backup-if-mismatch", "--reject-file=-", "-s", "-i")
		}},
		{"git", "git apply", func(c corpusCase) string { return external(tb, gd, c, "git", "apply") }},
		{"git-u0", "git apply --unidiff-zero", func(c corpusCase) string { return external(tb, gd, c, "git", "apply", "--unidiff-zero") }},
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
		got := t.run(c)
		v := judge(c, got)
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
	fmt.Printf("\n%d blocks from %d Go files under GOROOT/src; cells are correct / refused / wrong\n\n%s%s\n", len(cs), countFiles(cs), table(cs, names, tallies), notes)
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

func countFiles(cs []corpusCase) int {
	m := map[string]bool{}
	for _, c := range cs {
		m[c.Src] = true
	}
	return len(m)
}
