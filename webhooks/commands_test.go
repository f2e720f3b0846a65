package webhooks

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func TestCommandsParsing(t *testing.T) {
	body := "Please try again.\n/warden retry\n  /warden status  \n<!-- /warden cancel -->\n```\n/warden resume\n```\n/warden retry now\n/wardenretry\n/other cancel"
	got := Commands("warden", body)
	if want := []string{"retry", "status"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func comment(t *testing.T, body, sender string, labels ...string) []byte {
	return withInstallation(t, fixture(t, "issue_comment.created.json"), func(m map[string]any) {
		m["comment"].(map[string]any)["body"] = body
		m["sender"].(map[string]any)["login"] = sender
		var ls []any
		for _, l := range labels {
			ls = append(ls, map[string]any{"name": l})
		}
		m["issue"].(map[string]any)["labels"] = ls
	})
}

func TestSlashRetryQueuesForWriters(t *testing.T) {
	r := newRig()
	code, d := r.post(t, "issue_comment", "c1", comment(t, "/warden retry", "Codertocat", "warden:evolution"), nil)
	if code != http.StatusAccepted || len(r.q.runs) != 1 || r.q.runs[0].Mode != "evolution" || r.q.runs[0].Reason != "retry" {
		t.Fatalf("got %d %+v runs=%+v", code, d, r.q.runs)
	}
}

func TestSlashCommandRefusedForReaders(t *testing.T) {
	r := newRig()
	r.perms["reader"] = "read"
	code, d := r.post(t, "issue_comment", "c2", comment(t, "/warden cancel", "reader", "warden:maintenance"), nil)
	if code != http.StatusOK || d.Status != "refused" || len(r.q.cancels) != 0 {
		t.Fatalf("got %d %+v cancels=%v", code, d, r.q.cancels)
	}
	if len(r.q.statuses) != 1 || r.q.statuses[0].State != "reply" {
		t.Fatalf("want one refusal reply, got %+v", r.q.statuses)
	}
}

func TestEditedCommentIgnored(t *testing.T) {
	r := newRig()
	body := withInstallation(t, fixture(t, "issue_comment.edited.json"), func(m map[string]any) {
		m["comment"].(map[string]any)["body"] = "/warden retry"
	})
	if _, d := r.post(t, "issue_comment", "c3", body, nil); d.Status != "ignored" {
		t.Fatalf("edited comment: %+v", d)
	}
}

func TestRetryWithoutModeLabelReplies(t *testing.T) {
	r := newRig()
	_, d := r.post(t, "issue_comment", "c4", comment(t, "/warden retry", "Codertocat"), nil)
	if d.Status != "refused" || len(r.q.runs) != 0 {
		t.Fatalf("got %+v", d)
	}
}

func TestInstallationInvalidatesCache(t *testing.T) {
	r := newRig()
	r.post(t, "installation", "i1", fixture(t, "installation.deleted.json"), nil)
	if len(r.app.invalidated) != 1 || r.app.invalidated[0] != 2 {
		t.Fatalf("invalidated = %v", r.app.invalidated)
	}
}
