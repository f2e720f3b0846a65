package fakegithub

import (
	"fmt"
	"net/http"
	"strings"
)

// autoMergeState is what a repository says of native auto-merge and how
// its merge queue answers an enqueue (#38): the interleaving test needs a
// repository that allows auto-merge and a queue that refuses a PR (Warden
// then enables auto-merge) or answers without an entry.
type autoMergeState struct {
	allow bool
	// refuse, when set, is the message of GitHub's UNPROCESSABLE answer to
	// every enqueuePullRequest until cleared.
	refuse string
	// blank counts the next enqueues answered without a queue entry (and
	// not queued): an answer Warden cannot read as "queued".
	blank int
}

// SetAllowAutoMerge sets the repository's allow_auto_merge setting.
func (s *Server) SetAllowAutoMerge(repo string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].auto.allow = on
}

// RefuseEnqueue answers every enqueuePullRequest on repo with GitHub's
// UNPROCESSABLE error carrying msg, until called with "".
func (s *Server) RefuseEnqueue(repo, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].auto.refuse = msg
}

// BlankEnqueues answers the next n enqueuePullRequest on repo with a
// mergeQueueEntry of null, leaving the PR out of the queue.
func (s *Server) BlankEnqueues(repo string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].auto.blank = n
}

// AutoMergeNow is GitHub's auto-merge acting on PR n: an open PR with
// auto-merge on whose head's check runs all completed successfully is
// merged ("auto-merge"), through the merge queue when the rules require it
// (entering and leaving it at once here). It reports whether it merged.
func (s *Server) AutoMergeNow(repo string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[repo]
	p := rp.pulls[n]
	if p == nil || !p.AutoMerge || p.State != "open" || !green(rp.checks[p.HeadSHA]) {
		return false
	}
	delete(rp.rules.queue, n)
	p.State, p.Merged, p.MergedWith, p.AutoMerge = "closed", true, "auto-merge", false
	return true
}

func green(runs []CheckRun) bool {
	for _, c := range runs {
		if c.Status != "completed" || c.Conclusion != "success" {
			return false
		}
	}
	return len(runs) > 0
}

// enqueueAnswer answers an enqueuePullRequest the switches above change:
// false leaves it to the ordinary answer.
func (s *Server) enqueueAnswer(w http.ResponseWriter, query string, rp *Repo) bool {
	if !strings.Contains(query, "enqueuePullRequest") || strings.Contains(query, "dequeuePullRequest") {
		return false
	}
	switch {
	case rp.auto.refuse != "":
		writeJSON(w, 200, map[string]any{"data": map[string]any{"enqueuePullRequest": nil},
			"errors": []any{map[string]any{"type": "UNPROCESSABLE", "path": []any{"enqueuePullRequest"}, "message": rp.auto.refuse}}})
	case rp.auto.blank > 0:
		rp.auto.blank--
		writeJSON(w, 200, map[string]any{"data": map[string]any{"enqueuePullRequest": map[string]any{"mergeQueueEntry": nil}}})
	default:
		return false
	}
	return true
}

// settings adds allow_auto_merge to a repository's JSON when set.
func (a autoMergeState) settings(m map[string]any) {
	if a.allow {
		m["allow_auto_merge"] = true
	}
}

// bindingsQuery answers a read of a PR node's merge queue membership and
// auto-merge request (autoMergeRequest is null while auto-merge is off).
func (s *Server) bindingsQuery(w http.ResponseWriter, vars map[string]any) {
	id, _ := vars["id"].(string)
	rp, p := s.pullByNodeID(id)
	if p == nil {
		writeJSON(w, 200, gqlNotFound(map[string]any{"node": nil}, fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id), "node"))
		return
	}
	var auto any
	if p.AutoMerge {
		auto = map[string]any{"enabledAt": "2026-01-01T00:00:00Z"}
	}
	writeJSON(w, 200, map[string]any{"data": map[string]any{"node": map[string]any{
		"number": p.Number, "isInMergeQueue": rp.rules.queue[p.Number], "autoMergeRequest": auto}}})
}
