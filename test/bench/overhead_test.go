package bench

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// bigFiles is the calc module plus 5,000 generated Go files in 50 packages
// (the same shape as workspace's BenchmarkPrepareCached), tested with
// `go test ./calc/`: the test command's time is not Warden's and is
// subtracted anyway.
func bigFiles() map[string]string {
	extra := map[string]string{".github/warden.yml": "test: go test ./calc/\nmax_fix_attempts: 2\n"}
	for i := range 5000 {
		extra[fmt.Sprintf("pkg%02d/file%04d.go", i%50, i)] = fmt.Sprintf("package pkg%02d\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", i%50, i, i, i)
	}
	return world.WithFiles(extra)
}

// split is one task's wall time, label to "attempt finished", taken apart.
// Every part is Warden's but model and test.
type split struct {
	wall, model, test                    time.Duration
	pickup, prepare, plan, edits, checks time.Duration
	release, remove                      time.Duration
	ghCalls                              int
}

// overhead is everything but the model's and the test command's time.
func (s split) overhead() time.Duration { return s.wall - s.model - s.test }

// other is the overhead none of the named parts holds: the status comment,
// state labels, outcome comment, Redis, logging.
func (s split) other() time.Duration {
	return s.overhead() - s.pickup - s.prepare - s.plan - s.edits - s.checks - s.release - s.remove
}

// measure labels a new issue, waits for its attempt, and splits its time
// using the bot's logs (stage, command and worktree durations), the fake
// model's request timings and the fake GitHub's calls.
func measure(w *world.World) split {
	n := nextIssue()
	calls := len(w.GH.Calls())
	t0 := label(w, n)
	end := finished(w, 5*time.Minute, "completed", n)[n].Time
	s := split{wall: end.Sub(t0)}
	var byStage map[string]time.Duration
	s.model, byStage = modelTime(w, t0, end)
	s.fromLogs(entries(w, n), byStage)
	issuePath := fmt.Sprintf("/repos/%s/issues/%d", world.Repo, n)
	for _, c := range w.GH.Calls()[calls:] {
		read := c.Method == "GET" && c.Path == issuePath || c.Subject == fmt.Sprintf("issue %d", n) // REST or GraphQL
		if read && s.pickup == 0 {
			s.pickup = c.Time.Sub(t0) // the worker's first call: intake + queue
		}
		if !c.Time.After(end) {
			s.ghCalls++
		}
	}
	return s
}

// fromLogs fills the parts the bot logs, less the model's time per stage.
func (s *split) fromLogs(log []entry, model map[string]time.Duration) {
	stage := map[string]time.Duration{}
	for _, e := range log {
		d := time.Duration(e.DurationMS) * time.Millisecond
		switch e.Msg {
		case "stage finished":
			stage[e.Stage] += d
		case "command finished":
			s.test += d
		case "worktree prepared":
			s.prepare += d
		case "worktree removed":
			s.remove += d
		}
	}
	s.plan = stage["Plan"] - model["plan"]
	s.edits = stage["Implement"] - model["implement"]
	s.checks = stage["Test"] - s.test + stage["Security"] + stage["Review"] - model["review"]
	s.release = stage["Release"]
}

// cloneTime is the baseline: a fresh `git clone` of the same repository.
func cloneTime(b *testing.B, bare string) time.Duration {
	dir := filepath.Join(b.TempDir(), "clone")
	t0 := time.Now()
	if out, err := exec.Command("git", "clone", "-q", "file://"+bare, dir).CombinedOutput(); err != nil {
		b.Fatalf("git clone: %v\n%s", err, out)
	}
	return time.Since(t0)
}

// BenchmarkOverhead5000: Warden's own time per happy maintenance task on a
// 5,000-file repository (a task's wall time, label to the attempt's end,
// minus the model's and the test command's time), after one warm-up task
// (the mirror clone), against a fresh `git clone` of the same repository in
// the same run. Target: overhead ≤ 2 s.
func BenchmarkOverhead5000(b *testing.B) {
	w := world.New(b, bigFiles(), concurrencyOpt(2))
	w.Model.Script(world.HappyScript)
	cold := measure(w)
	var sum split
	var clone time.Duration
	b.ResetTimer()
	for range b.N {
		s := measure(w)
		clone += cloneTime(b, w.Bare)
		sum = add(sum, s)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return ms(d) / float64(b.N) }
	for _, m := range []struct {
		unit string
		d    time.Duration
	}{
		{"overhead-ms", sum.overhead()}, {"wall-ms", sum.wall}, {"model-ms", sum.model}, {"test-ms", sum.test},
		{"pickup-ms", sum.pickup}, {"prepare-ms", sum.prepare}, {"plan-ms", sum.plan}, {"edits-ms", sum.edits},
		{"checks-ms", sum.checks}, {"release-ms", sum.release}, {"remove-ms", sum.remove}, {"other-ms", sum.other()},
		{"clone-ms", clone},
	} {
		b.ReportMetric(per(m.d), m.unit)
	}
	b.ReportMetric(float64(sum.overhead())/float64(clone), "overhead/clone")
	b.ReportMetric(float64(sum.ghCalls)/float64(b.N), "gh-calls/task")
	b.ReportMetric(ms(cold.overhead()), "first-task-overhead-ms")
}

func add(a, s split) split {
	a.wall += s.wall
	a.model += s.model
	a.test += s.test
	a.pickup += s.pickup
	a.prepare += s.prepare
	a.plan += s.plan
	a.edits += s.edits
	a.checks += s.checks
	a.release += s.release
	a.remove += s.remove
	a.ghCalls += s.ghCalls
	return a
}
