package bench

import (
	"testing"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// Batch sizes: the single pipeline takes a queue of tasksOne issues, the
// eight pipelines three waves of eight.
const (
	tasksOne   = 6
	tasksEight = 24
)

// batchResult is one batch of labels on one bot.
type batchResult struct {
	tasks   int
	wall    time.Duration // first delivery sent → last attempt finished
	ghCalls int           // GitHub REST calls the batch cost
	peakKB  float64       // the bot's VmHWM after the batch
	idleKB  float64       // its VmRSS before the batch
	cpuBot  float64       // CPU seconds of the bot process during the batch
	cpuKids float64       // … and of the commands it ran (git, go test)
}

func (r batchResult) perMinute() float64 { return float64(r.tasks) / r.wall.Minutes() }

// batch labels k new issues at once on w and waits until every attempt
// finished with a PR (completed).
func batch(w *world.World, k int) batchResult {
	r := batchResult{tasks: k, idleKB: w.Bot.ProcKB("VmRSS")}
	calls := len(w.GH.Calls())
	self0, kids0 := cpuSeconds(w.Bot.Pid())
	issues := make([]int, k)
	t0 := time.Now()
	for i := range issues {
		issues[i] = nextIssue()
		label(w, issues[i])
	}
	var end time.Time
	for _, e := range finished(w, 10*time.Minute, "completed", issues...) {
		if e.Time.After(end) {
			end = e.Time
		}
	}
	r.wall = end.Sub(t0)
	r.ghCalls = len(w.GH.Calls()) - calls
	r.peakKB = w.Bot.ProcKB("VmHWM")
	self1, kids1 := cpuSeconds(w.Bot.Pid())
	r.cpuBot, r.cpuKids = self1-self0, kids1-kids0
	return r
}

// happyWorld is the calc module tested by test (its .github/warden.yml) with
// the happy script, on a bot running n pipelines at once, warmed by one task
// (the mirror clone and the Go build cache).
func happyWorld(b *testing.B, n int, test string) *world.World {
	w := world.New(b, world.WithConfig("test: "+test+"\nmax_fix_attempts: 2\n"), concurrencyOpt(n))
	w.Model.Script(world.HappyScript)
	batch(w, 1)
	return w
}

// BenchmarkEightPipelines: a queue of happy maintenance tasks on one bot
// with WARDEN_CONCURRENCY=8 against the baseline of the same tasks on a bot
// with WARDEN_CONCURRENCY=1, same run, same machine. Reports tasks per
// minute, their ratio, the worker's peak RSS (VmHWM), CPU seconds per task
// and GitHub calls per task. The fake model answers in microseconds, so a
// task is Warden's own work plus the test command: the repository's real
// `go test ./...` (which compiles and links a test binary per task), and a
// trivial one that prints a passing package line, to see Warden alone.
func BenchmarkEightPipelines(b *testing.B) {
	for _, c := range []struct{ name, test string }{
		{"go-test", "go test ./..."},
		{"trivial-test", "echo ok example.com/calc/calc 0.001s"},
	} {
		b.Run(c.name, func(b *testing.B) { eightVersusOne(b, c.test) })
	}
}

func eightVersusOne(b *testing.B, test string) {
	one, eight := happyWorld(b, 1, test), happyWorld(b, 8, test)
	var r1, r8 batchResult
	b.ResetTimer()
	for range b.N {
		r1 = batch(one, tasksOne)
		r8 = batch(eight, tasksEight)
	}
	b.StopTimer()
	b.ReportMetric(r8.perMinute()/r1.perMinute(), "ratio")
	b.ReportMetric(r1.perMinute(), "tasks/min-1")
	b.ReportMetric(r8.perMinute(), "tasks/min-8")
	b.ReportMetric(r1.peakKB/1024, "peak-RSS-MB-1")
	b.ReportMetric(r8.peakKB/1024, "peak-RSS-MB-8")
	b.ReportMetric(r8.idleKB/1024, "idle-RSS-MB-8")
	b.ReportMetric(r1.cpuBot/float64(r1.tasks), "bot-cpu-s/task-1")
	b.ReportMetric(r8.cpuBot/float64(r8.tasks), "bot-cpu-s/task-8")
	b.ReportMetric(r1.cpuKids/float64(r1.tasks), "cmd-cpu-s/task-1")
	b.ReportMetric(r8.cpuKids/float64(r8.tasks), "cmd-cpu-s/task-8")
	b.ReportMetric(float64(r1.ghCalls)/float64(r1.tasks), "gh-calls/task-1")
	b.ReportMetric(float64(r8.ghCalls)/float64(r8.tasks), "gh-calls/task-8")
}
