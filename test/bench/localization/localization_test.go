// Package localization measures how well the planner's view of a repository
// finds the files that real fixes changed: today's file list, a plain BM25
// ranking and `bot context`, on the corpus of real fixed issues in
// corpus.jsonl (trees materialised by scripts/localization-corpus.sh).
package localization

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/repocontext/repoindex"
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
	// CORPUS names another corpus file, as for scripts/localization-corpus.sh:
	// a machine with the mirrors of some repositories only measures those.
	path := "corpus.jsonl"
	if p := os.Getenv("CORPUS"); p != "" {
		path = p
	}
	f, err := os.Open(path)
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
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, in)
	}
	return out
}

// BenchmarkLocalization runs every system on every instance once and
// reports recall and cost; b.N is ignored (one pass is the measurement).
func BenchmarkLocalization(b *testing.B) {
	corpus := loadCorpus(b)
	bot := buildBot(b)
	cache := b.TempDir()
	systems := []string{"listFiles", "bm25", "context"}
	res := map[string][]result{}
	builds := map[string]time.Duration{}
	sizes := map[string]int{}
	for _, in := range corpus {
		dir := filepath.Join("testdata", "trees", in.ID)
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
