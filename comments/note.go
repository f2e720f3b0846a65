package comments

import (
	"context"
	"strings"

	"github.com/google/go-github/v60/github"
)

// noteMarker opens the lifecycle's note in the status comment; the note
// runs to the end of the comment, so a new note replaces the old one.
const noteMarker = "<!-- warden:note -->"

// WithNote is a status comment body with its lifecycle note set to note
// (removed when note is empty), the checklist above it kept as it was.
func WithNote(body, note string) string {
	if i := strings.Index(body, noteMarker); i >= 0 {
		body = strings.TrimRight(body[:i], "\n") + "\n"
	}
	if note == "" {
		return body
	}
	return strings.TrimRight(body, "\n") + "\n\n" + noteMarker + "\n" + Neutralize(note) + "\n"
}

// StatusNote sets the note at the end of issue n's status comment: why a
// PR waits, for example. An unchanged note is not written again, so it can
// be set on every evaluation without notifying anyone. With a memo that
// knows the comment it is one edit, or none.
func (p *Poster) StatusNote(ctx context.Context, owner, repo string, n int, note string) error {
	if done, err := p.noteKnown(ctx, owner, repo, n, note); done {
		return err
	}
	own, err := p.own(ctx, owner, repo, n)
	if err != nil {
		return err
	}
	var existing *github.IssueComment
	for _, c := range own {
		if IsStatus(c.GetBody()) {
			existing = c
			break
		}
	}
	body := StatusMarker + "\n"
	if existing != nil {
		body = existing.GetBody()
	} else if note == "" {
		return nil
	}
	_, err = p.upsertID(ctx, owner, repo, n, existing, WithNote(body, note))
	return err
}
