package lifecycle

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/jobs"
)

// closeIssue delivers issues.closed for issue n (the opened fixture's
// shape with the closed action) and hands the payload to the lifecycle.
func (w *world) closeIssue(n int) {
	w.t.Helper()
	w.gh.CloseIssue(repo, n)
	got := w.deliver("issues", "issues.opened.json", func(m map[string]any) {
		m["action"] = "closed"
		obj(m, "issue")["number"] = n
		obj(m, "issue")["state"] = "closed"
	})
	if len(got.closed) != 1 || got.closed[0].Issue != n || got.closed[0].Repo != repo {
		w.t.Fatalf("router queued %+v", got.closed)
	}
	if err := w.life.IssueClosed(context.Background(), got.closed[0]); err != nil {
		w.t.Fatal(err)
	}
}

// Closing a blocker queues the issues blocked on it, in their trigger
// label's mode, unless they were closed or untriggered since.
func TestClosedBlockerRequeuesBlockedIssue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		labels   []string
		closed   bool
		wantMode string // "" for nothing queued
	}{
		{"maintenance", []string{"warden:maintenance", "warden:blocked"}, false, "maintenance"},
		{"evolution", []string{"warden:evolution", "warden:blocked"}, false, "evolution"},
		{"trigger removed since", []string{"warden:blocked"}, false, ""},
		{"closed since", []string{"warden:maintenance", "warden:blocked"}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			w.gh.AddIssue(repo, 3, "The blocker", "", "alice")
			w.gh.AddIssue(repo, 7, "Blocked work", "needs #3", "alice", tc.labels...)
			if tc.closed {
				w.gh.CloseIssue(repo, 7)
			}
			if err := w.links.BlockOn(ctx, repo, 3, 7); err != nil {
				t.Fatal(err)
			}
			w.closeIssue(3)
			queued := w.pending(t)
			if tc.wantMode == "" {
				if len(queued) != 0 {
					t.Fatalf("queued %+v", queued)
				}
				return
			}
			if len(queued) != 1 || queued[0].Issue != 7 || queued[0].Mode != tc.wantMode || queued[0].Reason != jobs.ReasonUnblock || queued[0].Title != "Blocked work" {
				t.Fatalf("queued %+v", queued)
			}
			w.closeIssue(3) // the link is spent: a second close queues nothing new
			if again := w.pending(t); len(again) != 1 {
				t.Fatalf("after a second close: %+v", again)
			}
		})
	}
}

// A decomposed parent is completed and closed when its last sub-issue
// closes, and not before.
func TestParentCompletesWhenEverySubIssueIsClosed(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.gh.AddIssue(repo, 10, "Big feature", "", "alice", "warden:evolution", "warden:decomposed")
	for _, k := range []int{11, 12} {
		w.gh.AddIssue(repo, k, "Part", "", "alice")
		if err := w.links.AddChild(ctx, repo, 10, k); err != nil {
			t.Fatal(err)
		}
	}
	w.closeIssue(11)
	if st := w.gh.Issue(repo, 10).State; st != "open" || len(w.gh.Comments(repo, 10)) != 0 {
		t.Fatalf("parent %s with comments %v while #12 is open", st, w.gh.Comments(repo, 10))
	}
	w.closeIssue(12)
	parent := w.gh.Issue(repo, 10)
	if parent.State != "closed" || !slices.Contains(parent.Labels, "warden:completed") {
		t.Fatalf("parent %+v", parent)
	}
	if cs := w.gh.Comments(repo, 10); len(cs) != 1 || !strings.Contains(cs[0].Body, "Every sub-issue is closed (#11, #12)") {
		t.Fatalf("comments %+v", cs)
	}
}

// pending lists the run tasks waiting in the queue.
func (w *world) pending(t *testing.T) []jobs.RunPayload {
	t.Helper()
	var out []jobs.RunPayload
	for _, id := range []int{7} {
		if waiting, _ := w.queue.Waiting(jobs.RunTaskID(repo, id)); waiting {
			infos, err := w.queue.Inspector().GetTaskInfo(jobs.QueueDefault, jobs.RunTaskID(repo, id))
			if err != nil {
				t.Fatal(err)
			}
			var p jobs.RunPayload
			if err := json.Unmarshal(infos.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
	}
	return out
}
