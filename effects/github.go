// Package effects is the one place Warden's GitHub side effects that
// matter go through: the merge call, the merge queue (enqueue, dequeue),
// native auto-merge (on, off), the review request (reviewers.go), thread
// replies (reply.go), pushes by git or through the Git Database API
// (push.go) and a released hold's hand-back (handback.go). Each answer is
// read strictly: only an answer that shows the effect confirms it;
// anything else (an error, an answer without the entry) leaves it
// unconfirmed, and the caller asks again later instead of marking it done.
// The journal (journal.go) records each intent before the call, so a
// worker killed between the two leaves an intent a sweeper (lifecycle's
// SweepEffects) re-drives, re-reading GitHub first where the effect may
// have happened (a reply in its thread, a branch at the pushed commit).
//
// A source check (lint_test.go) fails when code outside this package calls
// these mutations directly.
package effects

import (
	"context"
	"fmt"

	"github.com/google/go-github/v60/github"
	"github.com/shurcooL/githubv4"
	"github.com/warden-bot/warden/github/githubapp"
)

// GitHub performs the effects through one installation's client.
type GitHub struct{ C *github.Client }

// Entry is the merge queue entry GitHub answered; State is "" when the
// answer did not show one (not a confirmation).
type Entry struct {
	Position int
	State    string
}

// Enqueue adds the PR (node id) to its base branch's merge queue at head sha.
func (g GitHub) Enqueue(ctx context.Context, nodeID, sha string) (Entry, error) {
	var m struct {
		EnqueuePullRequest struct {
			MergeQueueEntry Entry
		} `graphql:"enqueuePullRequest(input: $input)"`
	}
	oid := githubv4.GitObjectID(sha)
	if err := githubapp.GraphQL(g.C).Mutate(ctx, &m, githubv4.EnqueuePullRequestInput{PullRequestID: githubv4.ID(nodeID), ExpectedHeadOid: &oid}, nil); err != nil {
		return Entry{}, err
	}
	return m.EnqueuePullRequest.MergeQueueEntry, nil
}

// Dequeue removes the PR from the merge queue. A PR that is not queued is
// an error GitHub words: the caller keeps its intent and re-reads.
func (g GitHub) Dequeue(ctx context.Context, nodeID string) error {
	var m struct {
		DequeuePullRequest struct {
			MergeQueueEntry struct{ State string }
		} `graphql:"dequeuePullRequest(input: $input)"`
	}
	if err := githubapp.GraphQL(g.C).Mutate(ctx, &m, githubv4.DequeuePullRequestInput{ID: githubv4.ID(nodeID)}, nil); err != nil {
		return fmt.Errorf("dequeue %s: %w", nodeID, err)
	}
	return nil
}

// EnableAutoMerge turns native auto-merge on at head sha; it reports
// whether GitHub's answer shows the PR.
func (g GitHub) EnableAutoMerge(ctx context.Context, nodeID, sha string) (bool, error) {
	var m struct {
		EnablePullRequestAutoMerge struct {
			PullRequest struct{ Number int }
		} `graphql:"enablePullRequestAutoMerge(input: $input)"`
	}
	oid := githubv4.GitObjectID(sha)
	if err := githubapp.GraphQL(g.C).Mutate(ctx, &m, githubv4.EnablePullRequestAutoMergeInput{PullRequestID: githubv4.ID(nodeID), ExpectedHeadOid: &oid}, nil); err != nil {
		return false, err
	}
	return m.EnablePullRequestAutoMerge.PullRequest.Number != 0, nil
}

// DisableAutoMerge turns native auto-merge off; it reports whether
// GitHub's answer shows the PR.
func (g GitHub) DisableAutoMerge(ctx context.Context, nodeID string) (bool, error) {
	var m struct {
		DisablePullRequestAutoMerge struct {
			PullRequest struct{ Number int }
		} `graphql:"disablePullRequestAutoMerge(input: $input)"`
	}
	if err := githubapp.GraphQL(g.C).Mutate(ctx, &m, githubv4.DisablePullRequestAutoMergeInput{PullRequestID: githubv4.ID(nodeID)}, nil); err != nil {
		return false, fmt.Errorf("disable auto-merge of %s: %w", nodeID, err)
	}
	return m.DisablePullRequestAutoMerge.PullRequest.Number != 0, nil
}

// Bindings reads whether GitHub would merge the PR (node id) by itself: in
// the merge queue, or auto-merge on. An answer that does not show the PR
// is an error, never "neither".
func (g GitHub) Bindings(ctx context.Context, nodeID string) (queued, auto bool, err error) {
	var q struct {
		Node struct {
			PullRequest struct {
				Number           int
				IsInMergeQueue   bool
				AutoMergeRequest *struct{ EnabledAt githubv4.DateTime }
			} `graphql:"... on PullRequest"`
		} `graphql:"node(id: $id)"`
	}
	if err := githubapp.GraphQL(g.C).Query(ctx, &q, map[string]any{"id": githubv4.ID(nodeID)}); err != nil {
		return false, false, fmt.Errorf("read the merge queue and auto-merge of %s: %w", nodeID, err)
	}
	p := q.Node.PullRequest
	if p.Number == 0 {
		return false, false, fmt.Errorf("read the merge queue and auto-merge of %s: the answer does not show the PR", nodeID)
	}
	return p.IsInMergeQueue, p.AutoMergeRequest != nil, nil
}

// Merge merges the PR at head sha with method (the REST call).
func (g GitHub) Merge(ctx context.Context, owner, name string, n int, method, sha string) (*github.PullRequestMergeResult, *github.Response, error) {
	return g.C.PullRequests.Merge(ctx, owner, name, n, "", &github.PullRequestOptions{MergeMethod: method, SHA: sha})
}
