package pipeline

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/warden-bot/warden/comments"
)

// statusHost records status pushes; the rest of Host is not used.
type statusHost struct {
	Host
	mu     sync.Mutex
	pushes []comments.Status
}

func (h *statusHost) Status(_ context.Context, s comments.Status) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pushes = append(h.pushes, s)
	return nil
}

func (h *statusHost) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pushes)
}

// Quick transitions are coalesced into one edit per interval; the final
// state goes out at once.
func TestTrackerCoalescesEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &statusHost{}
		tr := newTracker(h, slog.New(slog.NewTextHandler(io.Discard, nil)), "maintenance", 1)
		ctx := context.Background()
		tr.push(ctx)
		for _, st := range checklist[:3] {
			tr.stage(ctx, st, "running", "")
			tr.stage(ctx, st, "done", "")
		}
		if n := h.count(); n != 1 {
			t.Fatalf("pushes within the interval = %d, want 1", n)
		}
		time.Sleep(statusInterval)
		synctest.Wait()
		if n := h.count(); n != 2 || h.pushes[1].Stages[2].State != "done" {
			t.Fatalf("after the interval: %d pushes, last %+v", n, h.pushes[len(h.pushes)-1])
		}
		tr.stage(ctx, checklist[3], "running", "")
		tr.finish(ctx, "completed", "Opened PR #1.", 1)
		if n := h.count(); n != 3 || h.pushes[2].State != "completed" {
			t.Fatalf("finish was not pushed at once: %d pushes", n)
		}
		time.Sleep(2 * statusInterval)
		synctest.Wait()
		if n := h.count(); n != 3 {
			t.Fatalf("a flush after finish pushed again: %d", n)
		}
	})
}
