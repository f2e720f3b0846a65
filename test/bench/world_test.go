package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// The whole-pipeline benchmarks below run the real bot binary in a
// test/world: fake GitHub, fake model (replies in microseconds), a real git
// repository and real Redis.

// worldIssue numbers issues across every world of a run.
var worldIssue atomic.Int64

func nextIssue() int { return int(worldIssue.Add(1)) }

// concurrency sets WARDEN_CONCURRENCY.
func concurrencyOpt(n int) world.Option {
	return func(env map[string]string) {
		env["WARDEN_CONCURRENCY"] = fmt.Sprint(n)
		env["WARDEN_LOG_LEVEL"] = "info"
	}
}

// label queues issue n as a maintenance task (the calc bug) and returns when
// the delivery was sent.
func label(w *world.World, n int) time.Time {
	t0 := time.Now()
	if code := w.Label(n, "Add returns the difference", "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice"); code != 202 {
		w.T.Fatalf("issue %d: delivery answered %d", n, code)
	}
	return t0
}

// entry is one line of the bot's JSON log.
type entry struct {
	Time       time.Time `json:"time"`
	Msg        string    `json:"msg"`
	Issue      int       `json:"issue"`
	Stage      string    `json:"stage"`
	Outcome    string    `json:"outcome"`
	DurationMS int64     `json:"duration_ms"`
}

// entries parses the bot's log, keeping the lines about issue (any issue when 0).
func entries(w *world.World, issue int) []entry {
	var out []entry
	sc := bufio.NewScanner(strings.NewReader(w.Bot.Logs()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && (issue == 0 || e.Issue == issue) {
			out = append(out, e)
		}
	}
	return out
}

// finished waits for the "attempt finished" line of each issue (the last
// thing an attempt does, after its worktree is removed), checks that each
// ended with outcome want, and returns them.
func finished(w *world.World, d time.Duration, want string, issues ...int) map[int]entry {
	w.T.Helper()
	got := map[int]entry{}
	w.Eventually(d, func() bool {
		for _, e := range entries(w, 0) {
			if e.Msg == "attempt finished" {
				got[e.Issue] = e
			}
		}
		for _, n := range issues {
			if _, ok := got[n]; !ok {
				return false
			}
		}
		return true
	}, fmt.Sprintf("attempts of issues %v did not finish", issues))
	for _, n := range issues {
		if got[n].Outcome != want {
			w.T.Fatalf("issue %d ended %q, not %s:\n%s", n, got[n].Outcome, want, world.Tail(w.Bot.Logs(), 4000))
		}
	}
	return got
}

// modelTime sums the fake model's handling time of requests received in [from, to].
func modelTime(w *world.World, from, to time.Time) (total time.Duration, byStage map[string]time.Duration) {
	byStage = map[string]time.Duration{}
	for _, r := range w.Model.Requests() {
		if r.Received.Before(from) || r.Received.After(to) || r.Replied.IsZero() {
			continue
		}
		d := r.Replied.Sub(r.Received)
		total += d
		byStage[r.Stage] += d
	}
	return total, byStage
}

// cpuSeconds is the CPU time of pid itself and of its waited-for children
// (git, the test command and what they started), from /proc/<pid>/stat.
func cpuSeconds(pid int) (self, children float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1, -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	var t [4]float64
	for i := range t {
		fmt.Sscan(f[11+i], &t[i]) // utime, stime, cutime, cstime: fields 14–17
	}
	const hz = 100 // USER_HZ on Linux
	return (t[0] + t[1]) / hz, (t[2] + t[3]) / hz
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
