package world

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
)

// Deliver sends Payload(fixture, mutate) as event, signed; it returns the
// HTTP code.
func (w *World) Deliver(event, fixture string, mutate func(m map[string]any)) int {
	w.T.Helper()
	b := w.distinct(w.Payload(fixture, mutate))
	w.NextID++
	resp, err := http.DefaultClient.Do(harness.NewDelivery(w.Bot.URL()+"/webhooks", event, fmt.Sprintf("%s-%d", event, w.NextID), b, Secret))
	if err != nil {
		w.T.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// distinct makes a body Deliver already sent another event, as two real
// events always are (their objects' updated_at differ): Warden takes the
// same signed body under a new delivery id for a replay. The first send of
// a body goes out as built.
func (w *World) distinct(b []byte) []byte {
	if w.sent == nil {
		w.sent = map[[32]byte]bool{}
	}
	for w.sent[sha256.Sum256(b)] {
		stamped, ok := harness.Stamp(b, w.NextID+len(w.sent))
		if !ok {
			break // nothing to tell two such events apart by: send it as it is
		}
		b = stamped
	}
	w.sent[sha256.Sum256(b)] = true
	return b
}

// Payload is GitHub's example payload (the fixture file) pointed at this
// world's repository and installation and changed by mutate: a body to sign
// and send, as many times and with whatever delivery ids a test needs.
func (w *World) Payload(fixture string, mutate func(m map[string]any)) []byte {
	w.T.Helper()
	var m map[string]any
	if err := json.Unmarshal(harness.Fixture(w.T, "webhooks/"+fixture), &m); err != nil {
		w.T.Fatal(err)
	}
	m["installation"] = map[string]any{"id": Inst, "node_id": "test"}
	w.asRepo(m["repository"])
	if pr, ok := m["pull_request"].(map[string]any); ok {
		for _, side := range []string{"base", "head"} {
			if ref, ok := pr[side].(map[string]any); ok {
				w.asRepo(ref["repo"])
			}
		}
	}
	if mutate != nil {
		mutate(m)
	}
	b, _ := json.Marshal(m)
	return b
}

// asRepo makes an example's repository object the world's, as GitHub
// would send it: the API's id above all, since Warden takes a name whose
// id changed for another repository and drops what it keeps under it.
func (w *World) asRepo(v any) {
	r, ok := v.(map[string]any)
	if !ok {
		return
	}
	rp := w.GH.Repo(Repo)
	r["id"], r["full_name"], r["name"] = rp.ID, Repo, Name
	r["clone_url"], r["default_branch"] = rp.CloneURL, rp.DefaultBranch
	if o, ok := r["owner"].(map[string]any); ok {
		o["login"] = Owner
	}
}

// Comment delivers issue_comment.created on issue n, with its current labels.
func (w *World) Comment(n int, body, sender string) int {
	w.T.Helper()
	var labels []any
	for _, l := range w.GH.Labels(Repo, n) {
		labels = append(labels, map[string]any{"name": l})
	}
	return w.Deliver("issue_comment", "issue_comment.created.json", func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["number"], is["labels"] = n, labels
		delete(is, "pull_request")
		m["comment"].(map[string]any)["body"] = body
		m["sender"].(map[string]any)["login"] = sender
	})
}

// PRRef is a pull request as webhook payloads show it.
func PRRef(p fakegithub.Pull) map[string]any {
	return map[string]any{"number": p.Number, "head": map[string]any{"ref": p.Head, "sha": p.HeadSHA}, "base": map[string]any{"ref": "main"}}
}

// CheckRun delivers check_run.completed for the PR's current head.
func (w *World) CheckRun(p fakegithub.Pull, conclusion string) int {
	w.GH.SetCheckRun(Repo, p.HeadSHA, "ci", "completed", conclusion)
	return w.Deliver("check_run", "check_run.completed.json", func(m map[string]any) {
		cr := m["check_run"].(map[string]any)
		cr["head_sha"], cr["conclusion"], cr["name"] = p.HeadSHA, conclusion, "ci"
		cr["pull_requests"] = []any{PRRef(p)}
	})
}

// Review delivers pull_request_review.submitted by user on the PR's head.
func (w *World) Review(p fakegithub.Pull, user, state string) int {
	w.GH.AddReview(Repo, p.Number, user, state, p.HeadSHA)
	return w.Deliver("pull_request_review", "pull_request_review.submitted.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"] = p.Number
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		rv := m["review"].(map[string]any)
		rv["state"], rv["commit_id"] = state, p.HeadSHA
		rv["user"].(map[string]any)["login"] = user
		m["sender"].(map[string]any)["login"] = user
	})
}

// Pull is the repository's only PR, re-read.
func (w *World) Pull() fakegithub.Pull {
	w.T.Helper()
	prs := w.GH.Pulls(Repo)
	if len(prs) != 1 {
		w.T.Fatalf("want one PR, got %d", len(prs))
	}
	return prs[0]
}

// Records are the outcome records on issue n, in comment order.
func (w *World) Records(n int) []outcome.Record {
	var out []outcome.Record
	for _, b := range w.BotComments(n) {
		if rec, ok := comments.ParseRecord(b); ok {
			out = append(out, rec)
		}
	}
	return out
}

// OutcomeOf waits up to d for issue n's outcome comment and parses it.
func (w *World) OutcomeOf(n int, d time.Duration) outcome.Record {
	w.T.Helper()
	w.Eventually(d, func() bool { return w.CommentWith(n, "<!-- warden:outcome") != "" }, "no outcome comment")
	rec, _ := comments.ParseRecord(w.CommentWith(n, "<!-- warden:outcome"))
	return rec
}
