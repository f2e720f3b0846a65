package pipeline

import (
	"context"
	"sync"

	"github.com/warden-bot/warden/environment/workspace"
)

// prefetch starts the fetch of the task's mirror while setup reads the
// issue, its earlier outcomes and posts the status: all of them wait on the
// network, and the fetch needs nothing they return (the worktree's branch
// does: prepare makes it after). prepare learns through awaitFetch whether
// it still has to fetch.
func (a *attempt) prefetch(ctx context.Context) {
	if a.p.Workspace == nil {
		return
	}
	req := workspace.PrepareRequest{Repo: a.t.Repo, RepoID: a.t.RepoID, CloneURL: a.t.CloneURL, Token: a.t.Token, BaseBranch: a.t.DefaultBranch}
	done := make(chan error, 1)
	go func() { done <- a.p.Workspace.Fetch(ctx, req) }()
	a.fetched = sync.OnceValue(func() bool {
		err := <-done
		if err != nil {
			a.log.Info("mirror not fetched ahead; prepare fetches it", "err", err)
		}
		return err == nil
	})
}

// awaitFetch waits for prefetch's fetch, once: true if it succeeded. A
// later prepare (a fresh start after a corrupt worktree) fetches itself.
func (a *attempt) awaitFetch() bool {
	f := a.fetched
	if f == nil {
		return false
	}
	a.fetched = nil
	return f()
}
