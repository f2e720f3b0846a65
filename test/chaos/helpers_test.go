// Package chaos holds Warden's fault tests (issue #11): the real binary, the
// fake GitHub and model, real git and a real Redis, with processes killed and
// Redis restarted under load. Each test asserts that nothing is lost and
// nothing runs twice.
package chaos

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// waitFor polls cond until it holds or d passes, then fails showing the tail
// of logs (the process whose behaviour is awaited, not always the web one).
func waitFor(t *testing.T, d time.Duration, cond func() bool, logs func() string, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s\n--- logs ---\n%s", d, what, world.Tail(logs(), 8000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logged reports whether some log line holds msg and every one of attrs
// (JSON fragments such as `"count":1`).
func logged(logs, msg string, attrs ...string) bool {
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `"msg":"`+msg+`"`) {
			continue
		}
		all := true
		for _, a := range attrs {
			all = all && strings.Contains(line, a)
		}
		if all {
			return true
		}
	}
	return false
}

// startWorker runs one more `bot serve --role worker` of w on dataDir.
func startWorker(t *testing.T, w *world.World, dataDir, concurrency string) *harness.Bot {
	t.Helper()
	env := maps.Clone(w.Env)
	env["WARDEN_ROLE"], env["WARDEN_DATA_DIR"], env["WARDEN_CONCURRENCY"] = "worker", dataDir, concurrency
	return harness.StartBinary(t, w.Bin, env)
}

// modelHolds answers like world.HappyScript, except that an armed (issue
// title, stage) request hangs until the worker that sent it dies: the worker
// is then provably inside that stage.
type modelHolds struct {
	mu    sync.Mutex
	armed map[string]chan struct{} // title + "\x00" + stage
}

func newModelHolds(m *fakemodel.Server) *modelHolds {
	h := &modelHolds{armed: map[string]chan struct{}{}}
	m.Script(h.script)
	return h
}

// Arm holds the first stage request that quotes title; the predicate
// reports whether it arrived.
func (h *modelHolds) Arm(title, stage string) func() bool {
	ch := make(chan struct{})
	h.mu.Lock()
	h.armed[title+"\x00"+stage] = ch
	h.mu.Unlock()
	return func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
}

// script runs under the fake model's lock: it must not block, so the hang
// is the reply's, served outside the lock.
func (h *modelHolds) script(req fakemodel.Request) fakemodel.Reply {
	rep := world.HappyScript(req)
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Content)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for key, ch := range h.armed {
		title, stage, _ := strings.Cut(key, "\x00")
		if req.Stage == stage && strings.Contains(all.String(), title) {
			delete(h.armed, key)
			close(ch)
			rep.Hang = 10 * time.Minute // ends when the killed worker's connection drops
		}
	}
	return rep
}

// issueTitle names issue n uniquely, so prompts tell issues apart.
func issueTitle(n int) string { return fmt.Sprintf("Add returns the difference (case %d)", n) }

const issueBody = "calc.Add(2, 3) returns -1."
