package e2e

import (
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
)

// One web process and two workers on one Redis take 20 labelled issues;
// one worker is killed mid-run. Every issue is handled exactly once: one
// PR and one outcome each, nothing lost, nothing doubled.
func TestScaleOutSurvivesAKilledWorker(t *testing.T) {
	w := newWorld(t, calcRepo(), func(env map[string]string) { env["WARDEN_ROLE"] = "web" })
	var implements atomic.Int32
	w.Model.Script(func(r fakemodel.Request) fakemodel.Reply {
		rep := happyScript(r)
		if r.Stage == "implement" {
			implements.Add(1)
			rep.Hang = 400 * time.Millisecond // keep tasks in flight long enough to be killed
		}
		return rep
	})
	workers := make([]*harness.Bot, 2)
	for i := range workers {
		env := maps.Clone(w.Env)
		env["WARDEN_ROLE"], env["WARDEN_DATA_DIR"] = "worker", t.TempDir()
		workers[i] = harness.StartBinary(t, w.Bin, env)
	}
	const n = 20
	for i := range n {
		w.Label(100+i, fmt.Sprintf("Add returns the difference (%d)", i), "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")
	}
	w.Eventually(60*time.Second, func() bool { return strings.Contains(workers[0].Logs(), `"msg":"stage finished"`) }, "worker 0 never started a stage")
	workers[0].Kill()
	w.Eventually(5*time.Minute, func() bool {
		for i := range n {
			if len(w.Records(100+i)) == 0 {
				return false
			}
		}
		return true
	}, "not every issue got an outcome after a worker was killed")
	heads := map[string]bool{}
	for _, p := range w.GH.Pulls(repo) {
		if heads[p.Head] {
			t.Errorf("two PRs for branch %s", p.Head)
		}
		heads[p.Head] = true
	}
	if len(heads) != n {
		t.Errorf("PRs = %d, want %d", len(heads), n)
	}
	for i := range n {
		rs := w.Records(100 + i)
		if len(rs) != 1 || rs[0].Outcome != outcome.Completed {
			t.Errorf("issue %d: records %+v", 100+i, rs)
		}
	}
	t.Logf("implement calls: %d for %d issues (a killed run is redone)", implements.Load(), n)
}
