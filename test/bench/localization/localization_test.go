// Package localization measures how well the planner's view of a repository
// finds the files that real fixes changed: today's file list, a plain BM25
// ranking and `bot context`, on the corpus of real fixed issues in
// corpus.jsonl (trees materialised by scripts/localization-corpus.sh).
package localization

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/repoindex"
)

// instance is one line of corpus.jsonl.
type instance struct {
	ID        string   `json:"id"`
	Repo      string   `json:"repo"`
	Lang      string   `json:"lang"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Base      string   `json:"base"`
	Files     []string `json:"files"`
	TestFiles []string `json:"test_files"`
}

// result is one system's answer for one instance.
type result struct {
	listed, shown []string // in rank order; shown = outline or content
	tokens        int
	took          time.Duration
}

func loadCorpus(tb testing.TB) []instance {
	f, err := os.Open("corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []instance
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var in instance
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			tb.Fatalf("corpus.jsonl: %v", err)
		}
		out = append(out, in)
	}
	return out
}

// BenchmarkLocalization runs every system on every instance once and
// reports recall and cost; b.N is ignored (one pass is the measurement).
func BenchmarkLocalization(b *testing.B) {
	corpus := onlyLangs(loadCorpus(b))
	bot := buildBot(b)
	cache := b.TempDir()
	systems := []string{"listFiles", "bm25", "context"}
	res := map[string][]result{}
	builds := map[string]time.Duration{}
	sizes := map[string]int{}
	for _, in := range corpus {
		dir := filepath.Join("trees", in.ID)
		if _, err := os.Stat(filepath.Join(dir, ".done")); err != nil {
			b.Fatalf("%s: tree missing; run scripts/localization-corpus.sh", in.ID)
		}
		x, err := repoindex.Open(context.Background(), dir, repocontext.IndexDir(cache))
		if err != nil {
			b.Fatal(err)
		}
		builds[in.ID], sizes[in.ID] = x.Built, len(x.Files)
		res["listFiles"] = append(res["listFiles"], listFiles(dir))
		res["bm25"] = append(res["bm25"], bm25(x, dir, in))
		res["context"] = append(res["context"], botContext(b, bot, cache, dir, in))
	}
	report(b, corpus, systems, res, builds, sizes)
	reportByLang(b, corpus, systems, res)
}

func buildBot(tb testing.TB) string {
	bin := filepath.Join(tb.TempDir(), "bot")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/bot")
	cmd.Dir = "../../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building bot: %v\n%s", err, out)
	}
	return bin
}

// listFiles is pipeline.listFiles as it was: the first 400 paths in walk order.
func listFiles(dir string) result {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && len(files) < 400 && d.Name() != ".done" {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return result{listed: files, tokens: repocontext.Tokens(strings.Join(files, "\n"))}
}

// bm25 is the plain lexical baseline: top 20 listed, contents of the top 5.
func bm25(x *repoindex.Index, dir string, in instance) result {
	start := time.Now()
	scores := repocontext.BM25(x, repocontext.NewQuery(in.Title, in.Body))
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	var r result
	for i := 0; i < 20 && i < len(idx) && scores[idx[i]] > 0; i++ {
		p := x.Files[idx[i]].Path
		r.listed = append(r.listed, p)
		r.tokens += repocontext.Tokens(p + "\n")
		if i < 5 {
			r.shown = append(r.shown, p)
			b, _ := os.ReadFile(filepath.Join(dir, p))
			r.tokens += repocontext.Tokens(string(b))
		}
	}
	r.took = time.Since(start)
	return r
}

// botContext runs `bot context --json` with the index already cached (warm).
func botContext(tb testing.TB, bot, cache, dir string, in instance) result {
	start := time.Now()
	cmd := exec.Command(bot, "context", "--json", "--repo", dir, "--title", in.Title, "--body", in.Body, "--data-dir", cache)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s: bot context: %v", in.ID, err)
	}
	took := time.Since(start)
	var v repocontext.View
	if err := json.Unmarshal(out, &v); err != nil {
		tb.Fatalf("%s: bot context printed %q: %v", in.ID, out, err)
	}
	r := result{tokens: v.Tokens, took: took}
	for _, f := range v.Files {
		r.listed = append(r.listed, f.Path)
		if f.Outline || f.Content {
			r.shown = append(r.shown, f.Path)
		}
	}
	return r
}

func recall(want, got []string, n int) float64 {
	if n > 0 && len(got) > n {
		got = got[:n]
	}
	set := map[string]bool{}
	for _, g := range got {
		set[g] = true
	}
	hit := 0
	for _, w := range want {
		if set[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

func report(b *testing.B, corpus []instance, systems []string, res map[string][]result, builds map[string]time.Duration, sizes map[string]int) {
	repos, langs := map[string]bool{}, map[string]int{}
	for _, in := range corpus {
		repos[in.Repo] = true
		langs[in.Lang]++
	}
	fmt.Printf("\nlocalization: %d instances from %d repositories %v\n", len(corpus), len(repos), langs)
	fmt.Printf("%-10s %7s %7s %7s %7s %9s %9s\n", "system", "listed", "top10", "top20", "shown", "tokens", "p50 time")
	for _, s := range systems {
		var l, t10, t20, sh float64
		var toks []int
		var times []time.Duration
		for i, in := range corpus {
			r := res[s][i]
			l += recall(in.Files, r.listed, 0)
			t10 += recall(in.Files, r.listed, 10)
			t20 += recall(in.Files, r.listed, 20)
			sh += recall(in.Files, r.shown, 0)
			toks = append(toks, r.tokens)
			times = append(times, r.took)
			if s == "context" && testing.Verbose() && recall(in.Files, r.shown, 0) < 1 {
				fmt.Printf("  miss %s: want %v, shown %v\n", in.ID, in.Files, r.shown)
			}
		}
		n := float64(len(corpus))
		sort.Ints(toks)
		sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
		fmt.Printf("%-10s %7.2f %7.2f %7.2f %7.2f %9d %9s\n", s, l/n, t10/n, t20/n, sh/n, toks[len(toks)/2], times[len(times)/2].Round(time.Millisecond))
		b.ReportMetric(sh/n, s+"_recall_shown")
	}
	var worst time.Duration
	var worstID string
	for id, d := range builds {
		if d > worst {
			worst, worstID = d, id
		}
	}
	fmt.Printf("index build: slowest %s (%d files) %s\n", worstID, sizes[worstID], worst.Round(time.Millisecond))
}
