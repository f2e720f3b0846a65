// Package soak runs mixed traffic against one bot process (web and worker)
// on real Redis and checks that its goroutines, open files, worktrees and
// Redis keys come back to where they were after warm-up. `make test` runs
// 30 seconds of it; `make soak` runs SOAK_DURATION (default 30m).
package soak

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// Slack for connections kept idle for reuse, whose number depends on the
// traffic just before a reading: the bot keeps up to two idle HTTP
// connections per host it calls (fake GitHub, fake model: a file and two
// goroutines each), serves the soak's two HTTP clients' idle connections (a
// file and a goroutine each), and its Redis pools keep idle connections (a
// file each) for up to 30 minutes. A leak per task — the soak runs dozens
// (make test) to hundreds of tasks — is far beyond it.
const (
	goroutineSlack = 12
	fdSlack        = 8
	inFlight       = 3 // scenarios at once, for WARDEN_CONCURRENCY=2
)

func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("SOAK_DURATION")
	if v == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("SOAK_DURATION=%q is not a positive duration (e.g. 10m)", v)
	}
	return d
}

func TestSoak(t *testing.T) {
	length := soakDuration(t)
	w := world.New(t, nil, func(env map[string]string) { env["WARDEN_LOG_LEVEL"] = "info" })
	w.Model.Script(script)
	rdb := redis.NewClient(&redis.Options{Addr: harness.RedisAddr(t), DB: w.DB})
	defer rdb.Close()
	d := &driver{w: w, send: &sender{w: w, client: &http.Client{Timeout: 30 * time.Second}},
		logs: &follower{w: w, ends: map[int][]string{}}, counts: &counts{}}

	d.run(pool(), time.Time{}) // warm-up: every issue of the pool once
	base := settle(t, w, rdb)
	t0 := time.Now()
	d.idle = pool()
	d.run(nil, t0.Add(length))
	loop := time.Since(t0)
	end := settle(t, w, rdb)

	t.Logf("soak: %s of traffic (loop ended after %s): %s", length, loop.Round(time.Second), d.counts)
	t.Logf("\n%s", table(base, end))
	for _, e := range d.errs {
		t.Error(e)
	}
	judge(t, base, end)
}

// run works through first (each issue once) or, with a deadline, draws idle
// issues from the pool until it passes; inFlight scenarios at a time.
func (d *driver) run(first []issue, deadline time.Time) {
	if first != nil {
		d.idle = first
	}
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first != nil || time.Now().Before(deadline) {
				is, ok := d.take()
				if !ok && first != nil {
					return
				}
				if !ok {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				d.scenario(is)
				if first == nil {
					d.put(is)
				}
			}
		}()
	}
	wg.Wait()
}

// settle waits until no task is queued or running, lets the bot's last
// writes land, and reads its resources.
func settle(t *testing.T, w *world.World, rdb *redis.Client) snapshot {
	t.Helper()
	w.Eventually(3*time.Minute, func() bool { return idle(w) }, "tasks still queued or running")
	time.Sleep(3 * time.Second)
	s, err := read(w, rdb)
	if err != nil {
		t.Fatalf("reading the bot's resources: %v", err)
	}
	return s
}

// judge fails on growth: goroutines and open files beyond the keep-alive
// slack, any worktree left, or more keys without a TTL in any pattern than
// after warm-up (keys with a TTL, such as delivery ids, expire by design and
// are only reported).
func judge(t *testing.T, base, end snapshot) {
	if end.goroutines > base.goroutines+goroutineSlack {
		t.Errorf("goroutines grew: %d after warm-up, %d at the end", base.goroutines, end.goroutines)
	}
	if end.fds > base.fds+fdSlack {
		t.Errorf("open files grew: %d after warm-up, %d at the end", base.fds, end.fds)
	}
	if end.worktrees+end.registered+base.worktrees+base.registered != 0 {
		t.Errorf("worktrees left: %d/%d after warm-up, %d/%d at the end (directories/registered)", base.worktrees, base.registered, end.worktrees, end.registered)
	}
	for p, n := range end.persistent {
		if n > base.persistent[p] {
			t.Errorf("Redis keys without a TTL grew: %s %d after warm-up, %d at the end", p, base.persistent[p], n)
		}
	}
}

// table is the soak's summary, baseline against end.
func table(base, end snapshot) string {
	s := "| measure | after warm-up | at the end |\n|---|---|---|\n"
	row := func(name string, a, b any) { s += fmt.Sprintf("| %s | %v | %v |\n", name, a, b) }
	row("goroutines", base.goroutines, end.goroutines)
	row("open files", base.fds, end.fds)
	row("RSS MB (not judged)", fmt.Sprintf("%.1f", base.rssMB), fmt.Sprintf("%.1f", end.rssMB))
	row("worktrees (directories / registered)", fmt.Sprintf("%d / %d", base.worktrees, base.registered), fmt.Sprintf("%d / %d", end.worktrees, end.registered))
	row("Redis keys (DBSIZE)", base.keys, end.keys)
	for _, p := range patterns(base.persistent, end.persistent) {
		row("no TTL: `"+p+"`", base.persistent[p], end.persistent[p])
	}
	for _, p := range patterns(base.volatile, end.volatile) {
		row("TTL: `"+p+"` (not judged)", base.volatile[p], end.volatile[p])
	}
	return s
}

func patterns(a, b map[string]int) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
