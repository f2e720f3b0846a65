package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/world"
)

// planThinks is how long the fake planner takes, as a real model would
// take seconds: the baseline runs beside it.
const planThinks = 1500 * time.Millisecond

func thinkingPlanner(req fakemodel.Request) fakemodel.Reply {
	r := world.HappyScript(req)
	if req.Stage == "plan" {
		r.Hang = planThinks
	}
	return r
}

// BenchmarkBaselineCost: the wall time a baseline adds to a happy
// maintenance task (label → completed, PR opened) on the calc module with
// `go test ./...`, with a cold cache (each task's base run from scratch)
// and a warm one (the result of the task before), as ratios to the same
// task with `baseline: false`, all in the same run, interleaved. The fake
// planner takes 1.5 s, so the cold baseline has a model call to hide behind.
func BenchmarkBaselineCost(b *testing.B) {
	off := world.New(b, world.WithConfig("test: go test ./...\nmax_fix_attempts: 2\nbaseline: false\n"), concurrencyOpt(2))
	on := world.New(b, nil, concurrencyOpt(2))
	for _, w := range []*world.World{off, on} {
		w.Model.Script(thinkingPlanner)
		measure(w) // warm-up: the mirror clone, Go's build cache
	}
	cache := filepath.Join(on.Env["WARDEN_DATA_DIR"], "baselines")
	var none, cold, warm time.Duration
	b.ResetTimer()
	for i := range b.N {
		// The order rotates: on a loaded machine, a fixed order would
		// charge whatever the load does over a round to one variant.
		off1 := func() { none += measure(off).wall }
		coldWarm := func() {
			if err := os.RemoveAll(cache); err != nil {
				b.Fatal(err)
			}
			cold += measure(on).wall
			warm += measure(on).wall
		}
		if i%2 == 0 {
			off1()
			coldWarm()
		} else {
			coldWarm()
			off1()
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(ms(none)/n, "off-ms")
	b.ReportMetric(ms(cold)/n, "cold-ms")
	b.ReportMetric(ms(warm)/n, "warm-ms")
	b.ReportMetric(float64(cold)/float64(none), "cold/off")
	b.ReportMetric(float64(warm)/float64(none), "warm/off")
}
