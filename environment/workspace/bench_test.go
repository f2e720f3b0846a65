package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var (
	bigOnce sync.Once
	bigURL  string
)

// bigRepo is a bare repository of 5,000 files, built once per run.
func bigRepo(b *testing.B) string {
	bigOnce.Do(func() {
		root, _ := os.MkdirTemp("", "warden-bench-")
		work := filepath.Join(root, "work")
		for i := range 5000 {
			p := filepath.Join(work, fmt.Sprintf("pkg%02d/file%04d.go", i%50, i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("package pkg%02d\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", i%50, i, i, i)), 0o644)
		}
		bare := filepath.Join(root, "remote.git")
		for _, args := range [][]string{
			{"-C", work, "init", "-q", "-b", "main"}, {"-C", work, "add", "-A"},
			{"-C", work, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "big"},
			{"clone", "-q", "--bare", work, bare},
		} {
			if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
				panic(fmt.Sprintf("git %v: %v %s", args, err, out))
			}
		}
		bigURL = "file://" + bare
	})
	return bigURL
}

// BenchmarkPrepareCached: Warden's setup for a repeated task on a cached
// repository (fetch + worktree), against a fresh `git clone` of the same
// repository and a bare `git worktree add`, measured in the same run.
func BenchmarkPrepareCached(b *testing.B) {
	url := bigRepo(b)
	m, _ := New(b.TempDir(), Options{})
	ctx := context.Background()
	req := PrepareRequest{Repo: "bench/big", CloneURL: url, BaseBranch: "main", Branch: "warden/1-bench", TaskKey: "bench"}
	w, err := m.Prepare(ctx, req) // warm the mirror: a repeated task
	if err != nil {
		b.Fatal(err)
	}
	m.Remove(ctx, w)
	var prep, clone, bare time.Duration
	for range b.N {
		t0 := time.Now()
		w, err := m.Prepare(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		prep += time.Since(t0)
		m.Remove(ctx, w)

		dir := filepath.Join(b.TempDir(), "clone")
		t0 = time.Now()
		if out, err := exec.Command("git", "clone", "-q", url, dir).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		clone += time.Since(t0)
		os.RemoveAll(dir)

		wt := filepath.Join(b.TempDir(), "wt")
		t0 = time.Now()
		if out, err := exec.Command("git", "-C", m.mirrorDir("bench/big"), "worktree", "add", "-q", "--detach", wt, "refs/remotes/origin/main").CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		bare += time.Since(t0)
		exec.Command("git", "-C", m.mirrorDir("bench/big"), "worktree", "remove", "--force", wt).Run()
	}
	b.ReportMetric(float64(clone)/float64(prep), "clone/prepare")
	b.ReportMetric(100*(float64(prep)-float64(bare))/float64(bare), "overhead-%")
	b.ReportMetric(float64(prep.Milliseconds())/float64(b.N), "prepare-ms")
	b.ReportMetric(float64(clone.Milliseconds())/float64(b.N), "clone-ms")
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "worktree-add-ms")
}
