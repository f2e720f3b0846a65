// Package index measures the repository index on a large real repository
// against a same-run `git clone` of it: a cold build, and the update for a
// commit that changes at most 100 files (issue #30).
package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// largeRepo is a bare mirror of a repository of about 10,000 files
// (WARDEN_BENCH_INDEX_REPO; by default ruff, as the search tool's fetch
// github:astral-sh/ruff leaves it). Nothing of it is committed.
func largeRepo(b *testing.B) string {
	repo := os.Getenv("WARDEN_BENCH_INDEX_REPO")
	if repo == "" {
		repo = "/work/.mirror/astral-sh+ruff/repo"
	}
	if _, err := os.Stat(repo); err != nil {
		b.Fatalf("no mirror at %s (fetch github:astral-sh/ruff, or set WARDEN_BENCH_INDEX_REPO to a bare repository of ~10,000 files): %v", repo, err)
	}
	return repo
}

func git(b *testing.B, dir string, args ...string) string {
	b.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		b.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// baseCommit is the oldest of HEAD's first 60 ancestors whose diff to HEAD
// touches at most 100 files, and that count.
func baseCommit(b *testing.B, gitDir string) (string, int) {
	best, n := "", 0
	for k := 1; k <= 60; k++ {
		c := git(b, gitDir, "rev-parse", "HEAD~"+strconv.Itoa(k))
		m := len(strings.Fields(git(b, gitDir, "diff", "--name-only", c, "HEAD")))
		if m > 100 {
			break
		}
		best, n = c, m
	}
	if best == "" {
		b.Fatal("HEAD~1 already changes more than 100 files")
	}
	return best, n
}

// prepare makes the repository the benchmark clones: the mirror's trees at
// base and HEAD as two commits, sharing the mirror's objects (git
// alternates). A snapshot mirror lacks its largest blobs, which a clone
// cannot send; they are left out, as scripts/localization-corpus.sh does.
func prepare(b *testing.B, mirror string) (src string, changed int) {
	base, changed := baseCommit(b, mirror)
	src = filepath.Join(b.TempDir(), "src")
	if out, err := exec.Command("git", "init", "-q", src).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(src, ".git/objects/info/alternates"), []byte(mirror+"/objects\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	script := `set -e
parent=
for c in "$1" HEAD; do
  git --git-dir="$2" ls-tree -r "$c" | awk -F'\t' '$1 !~ /^160000/' > entries
  awk '{print $3}' entries | git --git-dir="$2" cat-file --batch-check='%(objectname) %(objecttype)' | awk '$2 == "blob" {print $1}' > present
  awk 'NR==FNR {ok[$1]=1; next} {split($0, a, "\t"); split(a[1], m, " "); if (m[3] in ok) print}' present entries > index-info
  rm -f .git/index
  git update-index --index-info < index-info
  tree=$(git write-tree)
  c=$(GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z git -c user.name=bench -c user.email=bench@localhost commit-tree "$tree" ${parent:+-p "$parent"} -m "$c")
  parent=$c
  [ "$c" = "$1" ] || true
done
git update-ref refs/heads/main "$parent"
git symbolic-ref HEAD refs/heads/main
rm -f entries present index-info .git/index`
	cmd := exec.Command("bash", "-c", script, "prepare", base, mirror)
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("preparing the benchmark repository: %v\n%s", err, out)
	}
	return src, changed
}

// cpuTime is the CPU time of this process and its finished children (git):
// on a shared, loaded machine it says what the work costs where wall time
// says how long the queue for the cores was.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkIndexLarge: per iteration a fresh clone (the baseline) of the
// prepared two-commit repository, a cold index build of its first commit
// (the mirror's HEAD~k), and the update to its second (the mirror's HEAD)
// through repoindex.Open with the first's index cached (loading the base
// from disk and saving the new index included). The clone is from a
// file:// URL, so git packs and sends the objects and the clone unpacks
// and checks them out as from a server; a path would hard-link the object
// files and measure a copy. CPU times sit beside the wall times: on a
// loaded machine cold-cpu/clone-cpu says what each costs.
func BenchmarkIndexLarge(b *testing.B) {
	repo := largeRepo(b)
	ctx := context.Background()
	var clone, cold, update, settle, cloneCPU, coldCPU, updateCPU time.Duration
	var files, changed int
	var heap, coldHeap uint64
	var onDisk int64
	src, n := prepare(b, repo)
	changed = n
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "clone")
		cpu0 := cpuTime()
		start := time.Now()
		if out, err := exec.Command("git", "clone", "-q", "file://"+src, dir).CombinedOutput(); err != nil {
			b.Fatalf("git clone: %v\n%s", err, out)
		}
		clone += time.Since(start)
		cloneCPU += cpuTime() - cpu0
		head := git(b, dir, "rev-parse", "HEAD")
		base := git(b, dir, "rev-parse", "HEAD~1")
		git(b, dir, "checkout", "-q", base)
		cache := b.TempDir()
		before := heapAfterGC()
		cpu0 = cpuTime()
		start = time.Now()
		bx, err := repoindex.Build(ctx, dir, base)
		if err != nil {
			b.Fatal(err)
		}
		cold += time.Since(start)
		coldCPU += cpuTime() - cpu0
		coldHeap = heapAfterGC() - before
		files = len(bx.Files)
		if err := bx.Save(repoindex.CacheFile(cache, base)); err != nil {
			b.Fatal(err)
		}
		bx = nil
		git(b, dir, "checkout", "-q", head)
		// A fresh checkout's index is racy: the first command that stats
		// the worktree re-reads every file (git's cost, paid once by
		// whatever runs first; a parked worktree has paid it). Timed apart.
		start = time.Now()
		git(b, dir, "status", "--porcelain", "--untracked-files=no")
		settle += time.Since(start)
		before = heapAfterGC()
		cpu0 = cpuTime()
		start = time.Now()
		x, err := repoindex.Open(ctx, dir, cache)
		if err != nil {
			b.Fatal(err)
		}
		update += time.Since(start)
		updateCPU += cpuTime() - cpu0
		if x.Commit != head || len(x.Files) == 0 {
			b.Fatalf("updated index names %s with %d files", x.Commit, len(x.Files))
		}
		heap = heapAfterGC() - before
		runtime.KeepAlive(x)
		if fi, err := os.Stat(repoindex.CacheFile(cache, head)); err == nil {
			onDisk = fi.Size()
		}
	}
	iters := float64(b.N)
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(changed), "changed-files")
	b.ReportMetric(clone.Seconds()*1000/iters, "clone-ms")
	b.ReportMetric(cold.Seconds()*1000/iters, "cold-ms")
	b.ReportMetric(update.Seconds()*1000/iters, "update-ms")
	b.ReportMetric(settle.Seconds()*1000/iters, "first-status-ms")
	b.ReportMetric(cloneCPU.Seconds()*1000/iters, "clone-cpu-ms")
	b.ReportMetric(coldCPU.Seconds()*1000/iters, "cold-cpu-ms")
	b.ReportMetric(updateCPU.Seconds()*1000/iters, "update-cpu-ms")
	b.ReportMetric(float64(cold)/float64(clone), "cold/clone")
	b.ReportMetric(float64(update)/float64(clone), "update/clone")
	b.ReportMetric(float64(coldCPU)/float64(cloneCPU), "cold-cpu/clone-cpu")
	b.ReportMetric(float64(heap)/float64(files)*10000/(1<<20), "heap-MiB/10k-files")
	b.ReportMetric(float64(coldHeap)/float64(files)*10000/(1<<20), "cold-heap-MiB/10k-files")
	b.ReportMetric(float64(onDisk)/float64(files)*10000/(1<<20), "disk-MiB/10k-files")
}
