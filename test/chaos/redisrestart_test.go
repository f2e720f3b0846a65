package chaos

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// The traffic: 40 issues, each with 12 labelled deliveries (one task per
// issue is the contract, so they fold into one run) and 13 `/warden status`
// comments (each one reply comment: exactly-once per delivery is countable).
// An issue's 25 deliveries are sent together, so some issues are wholly
// before the Redis stop, some wholly inside the outage, some after.
const (
	restartIssues     = 40
	labelsPerIssue    = 12
	statusesPerIssue  = 13
	firstRestartIssue = 301
	stopAfter         = 350 // answers before Redis is killed
)

// 1,000 signed deliveries from several goroutines into a web process whose
// Redis (persistent, appendfsync always) is killed part way and started
// again 3 s later. Every delivery is answered 2xx or 503 in time; every 503
// redelivered is then accepted; afterwards one worker processes what was
// queued: each issue's pipeline exactly once, each accepted status command
// exactly once, nothing lost across the restart.
func TestRedisRestartUnderLoadLosesAndDoublesNothing(t *testing.T) {
	t.Parallel()
	addr := harness.FreeAddr(t)
	rd := startOwnRedis(t, addr)
	w := world.New(t, world.WithConfig("test: \"true\"\n"), func(env map[string]string) {
		env["WARDEN_ROLE"], env["WARDEN_REDIS_URL"], env["WARDEN_LOG_LEVEL"] = "web", "redis://"+addr+"/0", "info"
	})
	w.Model.Script(world.HappyScript)
	tr := &traffic{url: w.Bot.URL() + "/webhooks", ds: restartDeliveries(w), workers: 8, gap: 8 * time.Millisecond}
	start := time.Now()
	tr.start()
	harness.Eventually(t, time.Minute, func() bool { return tr.answered.Load() >= stopAfter }, "traffic stalled before the Redis stop")
	stopped := time.Now()
	rd.stop(syscall.SIGKILL)
	time.Sleep(3 * time.Second)
	rd.start()
	tr.wait()
	resent, err := tr.redeliver(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d deliveries in %s, Redis killed after %d answers, %d redeliveries", len(tr.ds), time.Since(start).Round(time.Millisecond), stopAfter, resent)
	checkAnswers(t, tr.ds, stopped, w.Bot.Logs())
	worker := startWorker(t, w, t.TempDir(), "8")
	waitDrained(t, addr, w, worker)
	checkProcessedOnce(t, w, tr.ds)
}

// restartDeliveries are the 1,000 deliveries, issue by issue, each issue's
// label and status deliveries interleaved.
func restartDeliveries(w *world.World) []*delivery {
	var ds []*delivery
	for i := range restartIssues {
		n := firstRestartIssue + i
		w.GH.AddIssue(world.Repo, n, issueTitle(n), issueBody, "alice", "warden:maintenance")
		label, _ := io.ReadAll(w.LabeledRequest(n, "x", issueTitle(n), issueBody, "warden:maintenance", "alice").Body)
		status := w.Payload("issue_comment.created.json", func(m map[string]any) {
			is := m["issue"].(map[string]any)
			is["number"], is["labels"] = n, []any{map[string]any{"name": "warden:maintenance"}}
			delete(is, "pull_request")
			m["comment"].(map[string]any)["body"] = "/warden status"
			m["sender"].(map[string]any)["login"] = "alice"
		})
		for k := range labelsPerIssue + statusesPerIssue {
			d := &delivery{id: fmt.Sprintf("restart-%d-%d", n, k), event: "issues", issue: n, body: label}
			if k%2 == 1 || k >= 2*labelsPerIssue {
				d.event, d.body = "issue_comment", status
			}
			d.body, _ = harness.Stamp(d.body, k) // each delivery is another event (#31 replay)
			ds = append(ds, d)
		}
	}
	return ds
}

// waitDrained waits until both queues are empty and every issue has an
// outcome; a task archived (failed for good) fails the test.
func waitDrained(t *testing.T, addr string, w *world.World, worker *harness.Bot) {
	t.Helper()
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: addr})
	defer insp.Close()
	waitFor(t, 2*time.Minute, func() bool {
		for _, q := range []string{"critical", "default"} {
			qi, err := insp.GetQueueInfo(q)
			if err != nil || qi.Pending+qi.Active+qi.Scheduled+qi.Retry > 0 {
				return false
			}
			if qi.Archived > 0 {
				t.Fatalf("%d tasks in queue %s failed for good:\n%s", qi.Archived, q, world.Tail(worker.Logs(), 6000))
			}
		}
		for i := range restartIssues {
			if len(w.Records(firstRestartIssue+i)) == 0 {
				return false
			}
		}
		return true
	}, worker.Logs, "the worker did not drain the queues and report every issue")
}

// ownRedis is a redis-server the test may kill and start again on the same
// port and directory. It persists every write before answering
// (appendfsync always), as Warden's documented deployment requires: a
// Redis that forgets acknowledged writes loses queued work by definition.
type ownRedis struct {
	t    *testing.T
	addr string
	dir  string
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T, addr string) *ownRedis {
	t.Helper()
	r := &ownRedis{t: t, addr: addr, dir: t.TempDir()}
	r.start()
	t.Cleanup(func() { r.stop(syscall.SIGKILL) })
	return r
}

func (r *ownRedis) start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.addr)
	r.cmd = exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--dir", r.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--logfile", filepath.Join(r.dir, "redis.log"))
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server (install it: apt-get install redis-server, or brew install redis): %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", r.addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("redis-server did not listen on %s within 10 s (log in %s)", r.addr, r.dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends sig and waits for the server to exit.
func (r *ownRedis) stop(sig syscall.Signal) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(sig)
	_ = r.cmd.Wait()
	r.cmd = nil
}
