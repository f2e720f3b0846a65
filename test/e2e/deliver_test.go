package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
)

// deliver sends GitHub's example payload for event (the fixture file),
// pointed at this world's repository and installation and changed by
// mutate, signed; it returns the HTTP code.
func (w *world) deliver(event, fixture string, mutate func(m map[string]any)) int {
	w.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(harness.Fixture(w.t, "webhooks/"+fixture), &m); err != nil {
		w.t.Fatal(err)
	}
	m["installation"] = map[string]any{"id": inst, "node_id": "test"}
	r := m["repository"].(map[string]any)
	r["full_name"], r["name"] = repo, name
	r["clone_url"], r["default_branch"] = w.gh.Repo(repo).CloneURL, "main"
	r["owner"].(map[string]any)["login"] = owner
	if mutate != nil {
		mutate(m)
	}
	b, _ := json.Marshal(m)
	w.nextID++
	resp, err := http.DefaultClient.Do(harness.NewDelivery(w.bot.URL()+"/webhooks", event, fmt.Sprintf("%s-%d", event, w.nextID), b, secret))
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// prRef is a pull request as webhook payloads show it.
func prRef(p fakegithub.Pull) map[string]any {
	return map[string]any{"number": p.Number, "head": map[string]any{"ref": p.Head, "sha": p.HeadSHA}, "base": map[string]any{"ref": "main"}}
}

// checkRun delivers check_run.completed for the PR's current head.
func (w *world) checkRun(p fakegithub.Pull, conclusion string) int {
	w.gh.SetCheckRun(repo, p.HeadSHA, "ci", "completed", conclusion)
	return w.deliver("check_run", "check_run.completed.json", func(m map[string]any) {
		cr := m["check_run"].(map[string]any)
		cr["head_sha"], cr["conclusion"], cr["name"] = p.HeadSHA, conclusion, "ci"
		cr["pull_requests"] = []any{prRef(p)}
	})
}

// review delivers pull_request_review.submitted by user on the PR's head.
func (w *world) review(p fakegithub.Pull, user, state string) int {
	w.gh.AddReview(repo, p.Number, user, state, p.HeadSHA)
	return w.deliver("pull_request_review", "pull_request_review.submitted.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"] = p.Number
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = p.Head, p.HeadSHA
		rv := m["review"].(map[string]any)
		rv["state"], rv["commit_id"] = state, p.HeadSHA
		rv["user"].(map[string]any)["login"] = user
		m["sender"].(map[string]any)["login"] = user
	})
}

// pull is the repository's only PR, re-read.
func (w *world) pull() fakegithub.Pull {
	w.t.Helper()
	prs := w.gh.Pulls(repo)
	if len(prs) != 1 {
		w.t.Fatalf("want one PR, got %d", len(prs))
	}
	return prs[0]
}

// records are the outcome records on issue n, in comment order.
func (w *world) records(n int) []outcome.Record {
	var out []outcome.Record
	for _, b := range w.botComments(n) {
		if rec, ok := comments.ParseRecord(b); ok {
			out = append(out, rec)
		}
	}
	return out
}
