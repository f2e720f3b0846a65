package comments

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/outcome"
)

// IssueComments is the part of go-github's IssuesService the poster uses.
type IssueComments interface {
	ListComments(ctx context.Context, owner, repo string, n int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, n int, c *github.IssueComment) (*github.IssueComment, *github.Response, error)
	EditComment(ctx context.Context, owner, repo string, id int64, c *github.IssueComment) (*github.IssueComment, *github.Response, error)
}

// Poster writes Warden's comments on one installation.
type Poster struct {
	Client   IssueComments
	BotLogin string
	Redactor *Redactor
	// Remember keeps the first listing of Warden's comments and follows
	// its own writes, for a poster that is the only writer of its issue's
	// Warden comments while it lives (one attempt): a task then lists the
	// issue's comments once instead of for every lookup.
	Remember bool
	// Memo, when set, follows every status comment write (memo.go).
	Memo StatusMemo
	// Self, when set, hears the user id GitHub answers for a comment this
	// poster wrote as BotLogin: the App's bot account, learned without a
	// GET /users/<login> (the commit e-mail needs it).
	Self func(id int64)
	mu   sync.Mutex // a status flush may run beside the attempt
	mine map[int][]*github.IssueComment
}

// own lists Warden's own comments on an issue (author == bot), oldest first.
func (p *Poster) own(ctx context.Context, owner, repo string, n int) ([]*github.IssueComment, error) {
	p.mu.Lock()
	cs, ok := p.mine[n]
	p.mu.Unlock()
	if ok { // only a remembering poster fills mine
		return cs, nil
	}
	cs, err := p.list(ctx, owner, repo, n)
	if err == nil && p.Remember {
		p.mu.Lock()
		if p.mine == nil {
			p.mine = map[int][]*github.IssueComment{}
		}
		p.mine[n] = cs
		p.mu.Unlock()
	}
	return cs, err
}

// remember follows a write of Warden's own into the remembered listing.
func (p *Poster) remember(n int, c *github.IssueComment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.Remember || p.mine == nil || c == nil {
		return
	}
	for _, old := range p.mine[n] {
		if old.GetID() == c.GetID() {
			old.Body = c.Body
			return
		}
	}
	if _, listed := p.mine[n]; listed {
		p.mine[n] = append(p.mine[n], c)
	}
}

func (p *Poster) list(ctx context.Context, owner, repo string, n int) ([]*github.IssueComment, error) {
	var out []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < 50; page++ {
		cs, resp, err := p.Client.ListComments(ctx, owner, repo, n, opts)
		if err != nil {
			return nil, fmt.Errorf("list comments %s/%s#%d: %w", owner, repo, n, err)
		}
		for _, c := range cs {
			if c.GetUser().GetLogin() == p.BotLogin {
				out = append(out, c)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

func (p *Poster) clean(body string) string { return Fit(p.Redactor.Redact(body), Limit) }

// Clean is body redacted and fitted for anything Warden writes on GitHub
// outside a comment (a PR's description), with room left for a marker.
func (p *Poster) Clean(body string) string { return Fit(p.Redactor.Redact(body), Limit-512) }

func (p *Poster) upsert(ctx context.Context, owner, repo string, n int, existing *github.IssueComment, body string) error {
	_, err := p.upsertID(ctx, owner, repo, n, existing, body)
	return err
}

// upsertID edits existing (when its body changed) or creates a comment,
// and returns the comment's id.
func (p *Poster) upsertID(ctx context.Context, owner, repo string, n int, existing *github.IssueComment, body string) (int64, error) {
	body = p.clean(body)
	if existing != nil {
		if existing.GetBody() == body {
			return existing.GetID(), nil // unchanged: no edit, no notification
		}
		return existing.GetID(), p.EditComment(ctx, owner, repo, n, existing.GetID(), body)
	}
	c, err := p.create(ctx, owner, repo, n, body)
	p.wrote(ctx, owner, repo, n, c.GetID(), body, err)
	if err != nil {
		return 0, err
	}
	p.remember(n, &github.IssueComment{ID: github.Int64(c.GetID()), Body: &body})
	return c.GetID(), nil
}

// EditComment replaces the body of Warden's comment id on issue n.
func (p *Poster) EditComment(ctx context.Context, owner, repo string, n int, id int64, body string) error {
	body = p.clean(body)
	_, _, err := p.Client.EditComment(ctx, owner, repo, id, &github.IssueComment{Body: &body})
	p.wrote(ctx, owner, repo, n, id, body, err)
	if err != nil {
		return fmt.Errorf("edit comment %d on %s/%s#%d: %w", id, owner, repo, n, err)
	}
	p.remember(n, &github.IssueComment{ID: github.Int64(id), Body: &body})
	return nil
}

// UpsertStatus creates or edits the sticky status comment and returns its
// id, so that later edits need not list the issue's comments again.
func (p *Poster) UpsertStatus(ctx context.Context, owner, repo string, n int, body string) (int64, error) {
	own, err := p.own(ctx, owner, repo, n)
	if err != nil {
		return 0, err
	}
	var existing *github.IssueComment
	for _, c := range own {
		if IsStatus(c.GetBody()) {
			existing = c
			break
		}
	}
	return p.upsertID(ctx, owner, repo, n, existing, body)
}

// PostOutcome posts an attempt's outcome. The same fingerprint already
// posted on this issue edits that comment with a repeat count instead, so a
// recurring failure never floods the issue.
func (p *Poster) PostOutcome(ctx context.Context, owner, repo string, n int, rec outcome.Record, d Details) error {
	own, err := p.own(ctx, owner, repo, n)
	if err != nil {
		return err
	}
	var existing *github.IssueComment
	if rec.Fingerprint != "" {
		for _, c := range own {
			if prev, ok := ParseRecord(c.GetBody()); ok && prev.Fingerprint == rec.Fingerprint && prev.Outcome == rec.Outcome {
				existing, rec.Repeat = c, max(prev.Repeat, 1)+1
			}
		}
	}
	return p.upsert(ctx, owner, repo, n, existing, RenderOutcome(rec, d))
}

// PriorOutcomes returns the records of Warden's own outcome comments, oldest first.
func (p *Poster) PriorOutcomes(ctx context.Context, owner, repo string, n int) ([]outcome.Record, error) {
	own, err := p.own(ctx, owner, repo, n)
	if err != nil {
		return nil, err
	}
	var recs []outcome.Record
	for _, c := range own {
		if rec, ok := ParseRecord(c.GetBody()); ok {
			recs = append(recs, rec)
		}
	}
	return recs, nil
}

// HasOwn reports whether one of Warden's own comments on issue n holds
// text.
func (p *Poster) HasOwn(ctx context.Context, owner, repo string, n int, text string) (bool, error) {
	own, err := p.own(ctx, owner, repo, n)
	if err != nil {
		return false, err
	}
	for _, c := range own {
		if strings.Contains(c.GetBody(), text) {
			return true, nil
		}
	}
	return false, nil
}

// Reply posts a plain comment (refusals, notices).
func (p *Poster) Reply(ctx context.Context, owner, repo string, n int, body string) error {
	return p.upsert(ctx, owner, repo, n, nil, body)
}
