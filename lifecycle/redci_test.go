package lifecycle

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/warden-bot/warden/jobs"
)

// A red head queues its fix attempt from the repository the PR read under
// the lease shows (clone URL, default branch): no read of the repository
// on its own.
func TestRedCIFixUsesThePRsRepository(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue(repo, 7, "Fix", "", "alice", "warden:maintenance")
	n, sha := w.openPR(7, "maintenance")
	w.gh.SetCheckRun(repo, sha, "ci", "completed", "failure")
	if err := w.life.PR(context.Background(), jobs.PRPayload{Repo: repo, Installation: inst, PR: n, Action: "checks"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.gh.Calls() {
		if c.Method == "GET" && c.Path == "/repos/"+repo {
			t.Errorf("the repository was read on its own: %s %s", c.Method, c.Path)
		}
	}
	tasks, err := w.queue.Inspector().ListPendingTasks(jobs.QueueDefault)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("%d pending tasks (%v), want the fix attempt", len(tasks), err)
	}
	var p jobs.RunPayload
	if err := json.Unmarshal(tasks[0].Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p.Reason != jobs.ReasonFollowup || p.PR != n || p.CloneURL != w.gh.Repo(repo).CloneURL || p.DefaultBranch != "main" {
		t.Fatalf("fix attempt %+v, want a follow-up of PR #%d from %s, main", p, n, w.gh.Repo(repo).CloneURL)
	}
}
