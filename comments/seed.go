package comments

import (
	"context"

	"github.com/google/go-github/v60/github"
)

// Seed gives a remembering poster the listing of Warden's comments on issue
// n when the caller knows it without asking GitHub: none, or only the status
// comment statusID (0 for none). Its body is not known, so the first status
// write edits it.
func (p *Poster) Seed(n int, statusID int64) {
	if !p.Remember {
		return
	}
	cs := []*github.IssueComment{}
	if statusID != 0 {
		cs = append(cs, &github.IssueComment{ID: github.Int64(statusID), Body: github.String(StatusMarker)})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mine == nil {
		p.mine = map[int][]*github.IssueComment{}
	}
	p.mine[n] = cs
}

// UpsertStatusNew creates the status comment without looking for an old
// one (the caller knows there is none it may edit) and returns its id.
func (p *Poster) UpsertStatusNew(ctx context.Context, owner, repo string, n int, body string) (int64, error) {
	return p.upsertID(ctx, owner, repo, n, nil, body)
}
