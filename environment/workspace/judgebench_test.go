package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkJudging5000: the judging of one task on 5,000 files, as the
// stages run it — the Implement stage's Changes on a new tree, the
// Security stage's on the same tree after the tests, and the review's
// diff — in milliseconds per task.
func BenchmarkJudging5000(b *testing.B) {
	m, _ := New(b.TempDir(), Options{})
	ctx := context.Background()
	w, err := m.Prepare(ctx, PrepareRequest{Repo: "bench/big", CloneURL: bigRepo(b), BaseBranch: "main", Branch: "warden/1-bench", TaskKey: "judge"})
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(w.Dir, "pkg01", "file0001.go")
	i := 0
	for b.Loop() {
		i++ // each task's change is another tree
		os.WriteFile(p, []byte(fmt.Sprintf("package pkg01\n\nfunc F1() int { return %d }\n", i)), 0o644)
		for range 2 {
			if _, err := w.Changes(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := reviewDiff(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
}

// reviewDiff is the diff the Review stage reads.
func reviewDiff(ctx context.Context, w *Worktree) (string, error) { return w.JudgedDiff(ctx) }
