package lifecycle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/jobs"
)

// A suite another App opened minutes ago and has not added a run to holds
// the merge, and a look is scheduled for when it will be passed over: no
// event announces that an App never reported (Codecov, Mergify and others
// leave such suites queued on every push, which held green PRs forever).
func TestYoungIdleSuiteSchedulesALookForWhenItIsPassedOver(t *testing.T) {
	g := newGateGH(t)
	g.run("ci", "completed", "success")
	g.suiteAt("queued", time.Now().Add(-2*time.Minute))
	_, q := testQueue(t)
	l := g.lifecycle()
	l.Queue = q
	if err := l.PR(context.Background(), jobs.PRPayload{Repo: gateRepo, Installation: 1, PR: 3, SHA: gateHead, Action: "checks"}); err != nil {
		t.Fatal(err)
	}
	if g.merged {
		t.Fatal("merged while another App's suite was minutes old")
	}
	sched, err := q.Inspector().ListScheduledTasks(jobs.QueueCritical)
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Time
	for _, ti := range sched {
		if ti.Type == jobs.TypePR && strings.Contains(string(ti.Payload), `"retry"`) {
			at = append(at, ti.NextProcessAt)
		}
	}
	want := time.Now().Add(idleSuite - 2*time.Minute)
	if len(at) != 1 || at[0].Before(want.Add(-time.Minute)) || at[0].After(want.Add(time.Minute)) {
		t.Fatalf("scheduled looks %v, want one near %v", at, want)
	}
}
