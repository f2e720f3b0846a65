package comments

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/go-github/v60/github"
)

// StatusMemo remembers the status comment Warden last wrote on an issue,
// its id and body, for every process: the lifecycle's note (why a PR waits,
// cleared when it merges) is then one edit of a body it knows instead of a
// listing of the comments and an edit. Only writes GitHub answered
// are remembered; a failed one forgets, so the next note lists again.
type StatusMemo interface {
	Last(ctx context.Context, repo string, n int) (id int64, body string, ok bool)
	Wrote(ctx context.Context, repo string, n int, id int64, body string)
	Forget(ctx context.Context, repo string, n int)
}

// wrote tells the memo about a write of a status comment (err == nil) or
// a failed one, which may have landed or not: then it forgets.
func (p *Poster) wrote(ctx context.Context, owner, repo string, n int, id int64, body string, err error) {
	if p.Memo == nil || !IsStatus(body) {
		return
	}
	if err != nil {
		p.Memo.Forget(ctx, owner+"/"+repo, n)
		return
	}
	p.Memo.Wrote(ctx, owner+"/"+repo, n, id, body)
}

// noteKnown sets the note on the status comment the memo knows: done is
// false when it knows none, or GitHub no longer has it (then the caller
// lists the comments as without a memo).
func (p *Poster) noteKnown(ctx context.Context, owner, repo string, n int, note string) (done bool, err error) {
	if p.Memo == nil {
		return false, nil
	}
	id, body, ok := p.Memo.Last(ctx, owner+"/"+repo, n)
	if !ok {
		return false, nil
	}
	next := WithNote(body, note)
	if p.clean(next) == body {
		return true, nil // unchanged: no edit, no notification
	}
	err = p.EditComment(ctx, owner, repo, n, id, next)
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return false, nil // deleted by someone: find or create it again
	}
	return true, err
}
