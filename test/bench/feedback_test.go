package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// firstCall is when the fake GitHub answered the first call of method to
// path at or after t0 (zero when none was made).
func firstCall(w *world.World, method, path string, t0 time.Time) time.Time {
	for _, c := range w.GH.Calls() {
		if c.Method == method && c.Path == path && !c.Time.Before(t0) {
			return c.Time
		}
	}
	return time.Time{}
}

// feedbackSample labels a new issue on an idle worker and returns how long
// until GitHub showed the 👀 reaction and the status comment (the first
// comment Warden wrote on the issue); the attempt ends after its Plan.
func feedbackSample(b *testing.B, w *world.World) (eyes, status time.Duration) {
	n := nextIssue()
	t0 := label(w, n)
	issue := fmt.Sprintf("/repos/%s/issues/%d", world.Repo, n)
	var te, ts time.Time
	w.Eventually(60*time.Second, func() bool {
		te, ts = firstCall(w, "POST", issue+"/reactions", t0), firstCall(w, "POST", issue+"/comments", t0)
		return !te.IsZero() && !ts.IsZero()
	}, "no 👀 reaction or no status comment")
	finished(w, 90*time.Second, "blocked", n)
	return te.Sub(t0), ts.Sub(t0)
}

// BenchmarkLabelToFeedback: a signed issues.labeled delivery to the real bot
// until the maintainer can see Warden react: the 👀 reaction, and the status
// comment, against the bare queue's no-op task (enqueue to handler start) on
// the same server configuration. Samples alternate on an idle worker.
func BenchmarkLabelToFeedback(b *testing.B) {
	w := world.New(b, nil, concurrencyOpt(2))
	w.Model.Script(blockPlan)
	client, started := noopWorker(b)
	feedbackSample(b, w) // warm: the mirror is cloned
	noopSample(b, client, started)
	var eyes, status, noop []time.Duration
	b.ResetTimer()
	for range b.N {
		noop = append(noop, noopSample(b, client, started))
		e, s := feedbackSample(b, w)
		eyes, status = append(eyes, e), append(status, s)
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"eyes", eyes}, {"status", status}, {"noop", noop}} {
		b.ReportMetric(ms(pct(m.d, 0.5)), m.name+"-p50-ms")
		b.ReportMetric(ms(pct(m.d, 0.99)), m.name+"-p99-ms")
	}
	b.ReportMetric(ms(pct(eyes, 0.5))/max(ms(pct(noop, 0.5)), 0.001), "eyes/noop-p50")
	b.ReportMetric(ms(pct(status, 0.5))/max(ms(pct(noop, 0.5)), 0.001), "status/noop-p50")
}
