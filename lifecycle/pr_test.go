package lifecycle

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/fakegithub"
)

// setPR points a pull_request or pull_request_review fixture at the PR.
func setPR(number int, sha, author string) func(map[string]any) {
	return func(m map[string]any) {
		pr := obj(m, "pull_request")
		pr["number"] = number
		obj(pr, "head")["ref"] = "warden/7-fix"
		obj(pr, "head")["sha"] = sha
		obj(pr, "user")["login"] = author
	}
}

// An evolution PR's warden/mode follows the reviews GitHub answers: success
// only for an approval of the current head by a writer other than Warden.
func TestEvolutionApprovalFromReviewWebhook(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reviews   [][3]string // user, state, "head" or "old"
		perms     map[string]string
		wantState string
		wantDesc  string
	}{
		{"writer approves the head", [][3]string{{"alice", "APPROVED", "head"}}, map[string]string{"alice": "write"}, "success", "approved by @alice"},
		{"admin approves the head", [][3]string{{"root", "APPROVED", "head"}}, map[string]string{"root": "admin"}, "success", "approved by @root"},
		{"reader approves", [][3]string{{"mallory", "APPROVED", "head"}}, map[string]string{"mallory": "read"}, "pending", "awaiting maintainer approval"},
		{"approval of an older commit", [][3]string{{"alice", "APPROVED", "old"}}, map[string]string{"alice": "write"}, "pending", "awaiting maintainer approval"},
		{"approval then changes requested", [][3]string{{"alice", "APPROVED", "head"}, {"alice", "CHANGES_REQUESTED", "head"}}, map[string]string{"alice": "write"}, "pending", "awaiting maintainer approval"},
		{"a later comment keeps the approval", [][3]string{{"alice", "APPROVED", "head"}, {"alice", "COMMENTED", "head"}}, map[string]string{"alice": "write"}, "success", "approved by @alice"},
		{"Warden approves itself", [][3]string{{fakegithub.BotLogin, "APPROVED", "head"}}, map[string]string{fakegithub.BotLogin: "admin"}, "pending", "awaiting maintainer approval"},
		{"no reviews", nil, nil, "pending", "awaiting maintainer approval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.gh.AddIssue(repo, 7, "Add a feature", "", "alice", "warden:evolution")
			n, sha := w.openPR(7, "evolution")
			for user, role := range tc.perms {
				w.gh.SetPermission(repo, user, role)
			}
			for _, r := range tc.reviews {
				commit := sha
				if r[2] == "old" {
					commit = "0000000000000000000000000000000000000001"
				}
				w.gh.AddReview(repo, n, r[0], r[1], commit)
			}
			got := w.deliver("pull_request_review", "pull_request_review.submitted.json", setPR(n, sha, fakegithub.BotLogin))
			if len(got.prs) != 1 || got.prs[0].Action != "review" || got.prs[0].PR != n {
				t.Fatalf("router queued %+v", got.prs)
			}
			if err := w.life.PR(context.Background(), got.prs[0]); err != nil {
				t.Fatal(err)
			}
			if state, desc := w.modeStatus(sha); state != tc.wantState || desc != tc.wantDesc {
				t.Fatalf("warden/mode %q %q, want %q %q", state, desc, tc.wantState, tc.wantDesc)
			}
		})
	}
}

// Someone else setting warden/mode on an evolution PR is answered by
// Warden's own value, from the status webhook.
func TestForeignModeStatusIsOverwritten(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue(repo, 7, "Add a feature", "", "alice", "warden:evolution")
	n, sha := w.openPR(7, "evolution")
	w.gh.SetStatus(repo, sha, "warden/mode", "success", "mallory")
	got := w.deliver("status", "status.json", func(m map[string]any) {
		m["sha"], m["context"], m["state"] = sha, "warden/mode", "success"
		m["branches"] = []any{map[string]any{"name": "warden/7-fix", "commit": map[string]any{"sha": sha}}}
		obj(m, "sender")["login"] = "mallory"
	})
	if len(got.prs) != 1 || got.prs[0].Action != "status" {
		t.Fatalf("router queued %+v", got.prs)
	}
	if err := w.life.PR(context.Background(), got.prs[0]); err != nil {
		t.Fatal(err)
	}
	if state, _ := w.modeStatus(sha); state != "pending" {
		t.Fatalf("warden/mode %q after mallory set success on PR #%d", state, n)
	}
}

// A closed Warden PR settles its issue: merged is completed; closed
// without merge is escalated with a comment saying how to retry.
func TestClosedPRSettlesTheIssue(t *testing.T) {
	for _, tc := range []struct {
		mode, marker string
		merged       bool
		wantLabel    string
		wantComment  string
	}{
		{"maintenance", "maintenance", true, "warden:completed", ""},
		{"evolution", "evolution", true, "warden:completed", ""},
		{"maintenance", "maintenance", false, "warden:escalated", "was closed without being merged"},
		{"no marker", "", false, "", ""}, // not Warden's PR to settle
	} {
		t.Run(tc.mode, func(t *testing.T) {
			w := newWorld(t)
			w.gh.AddIssue(repo, 7, "Fix it", "", "alice", "warden:"+tc.mode, "warden:pr-open")
			n, sha := w.openPR(7, tc.marker)
			w.gh.ClosePull(repo, n, tc.merged)
			got := w.deliver("pull_request", "pull_request.closed.json", func(m map[string]any) {
				setPR(n, sha, fakegithub.BotLogin)(m)
				m["number"] = n
				obj(m, "pull_request")["merged"] = tc.merged
			})
			if len(got.prs) != 1 || got.prs[0].Action != "closed" || got.prs[0].Merged != tc.merged {
				t.Fatalf("router queued %+v", got.prs)
			}
			if err := w.life.PR(context.Background(), got.prs[0]); err != nil {
				t.Fatal(err)
			}
			labels := w.gh.Labels(repo, 7)
			if tc.wantLabel == "" {
				if !slices.Equal(labels, []string{"warden:" + tc.mode, "warden:pr-open"}) || len(w.gh.Comments(repo, 7)) != 0 {
					t.Fatalf("a PR without the marker changed its issue: labels %v", labels)
				}
				return
			}
			if !slices.Contains(labels, tc.wantLabel) || slices.Contains(labels, "warden:pr-open") {
				t.Fatalf("labels %v, want %s instead of pr-open", labels, tc.wantLabel)
			}
			var all []string
			for _, c := range w.gh.Comments(repo, 7) {
				all = append(all, c.Body)
			}
			if tc.wantComment != "" && !strings.Contains(strings.Join(all, "\n"), tc.wantComment) {
				t.Fatalf("comments %q lack %q", all, tc.wantComment)
			}
		})
	}
}

// The router never queues a PR that is not on a Warden branch; the
// lifecycle re-reads the author even when told to look.
func TestNotWardensPR(t *testing.T) {
	w := newWorld(t)
	w.gh.AddIssue(repo, 7, "Fix it", "", "alice", "warden:maintenance")
	n, sha := w.openPR(7, "maintenance")
	got := w.deliver("pull_request", "pull_request.closed.json", func(m map[string]any) {
		setPR(n, sha, fakegithub.BotLogin)(m)
		obj(m, "pull_request", "head")["ref"] = "feature/x"
	})
	if len(got.prs) != 0 {
		t.Fatalf("a PR off a Warden branch was queued: %+v", got.prs)
	}
	got = w.deliver("pull_request", "pull_request.closed.json", setPR(n, sha, "Codertocat"))
	if len(got.prs) != 0 {
		t.Fatalf("a PR by someone else was queued: %+v", got.prs)
	}
}

func TestIssueRef(t *testing.T) {
	for in, want := range map[string]int{
		"#12": 12, " #3 ": 3, "https://github.com/acme/app/issues/9": 9, "https://github.com/acme/app/issues/9/": 9,
		"https://github.com/other/app/issues/9": 0, "12": 0, "#0": 0, "#x": 0, "": 0,
	} {
		if got := IssueRef("acme/app", in); got != want {
			t.Errorf("IssueRef(%q) = %d, want %d", in, got, want)
		}
	}
}
