package comments

import (
	"context"
	"strings"
	"testing"
)

// mapMemo is a StatusMemo in a map.
type mapMemo map[string]memoEntry

type memoEntry struct {
	id   int64
	body string
}

func (m mapMemo) key(repo string, n int) string { return repo + "#" + string(rune('0'+n)) }
func (m mapMemo) Last(_ context.Context, repo string, n int) (int64, string, bool) {
	e, ok := m[m.key(repo, n)]
	return e.id, e.body, ok
}
func (m mapMemo) Wrote(_ context.Context, repo string, n int, id int64, body string) {
	m[m.key(repo, n)] = memoEntry{id, body}
}
func (m mapMemo) Forget(_ context.Context, repo string, n int) { delete(m, m.key(repo, n)) }

// With a memo, a note on the status comment another poster wrote (the run,
// in another process) is one edit that keeps the checklist, an unchanged
// note no call, and clearing it one edit; nothing lists the comments.
// When the comment is gone, the note lists and creates it as without one.
func TestStatusNoteEditsTheRememberedComment(t *testing.T) {
	f := &fakeIssues{}
	memo := mapMemo{}
	ctx := context.Background()
	run := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Memo: memo}
	checklist := RenderStatus(Status{State: "pr-open", Mode: "maintenance"})
	if _, err := run.UpsertStatusNew(ctx, "o", "r", 1, checklist); err != nil {
		t.Fatal(err)
	}
	life := &Poster{Client: f, BotLogin: "warden[bot]", Redactor: NewRedactor(), Memo: memo}
	for _, note := range []string{"PR #2 waits for CI", "PR #2 waits for CI", ""} {
		if err := life.StatusNote(ctx, "o", "r", 1, note); err != nil {
			t.Fatal(err)
		}
	}
	if want := "o/r#1:create,o/r:edit:1,o/r:edit:1"; f.lists != 0 || strings.Join(f.writes, ",") != want {
		t.Fatalf("lists %d, writes %v; want no listing and %s", f.lists, f.writes, want)
	}
	if got := f.comments[0].GetBody(); strings.TrimSpace(got) != strings.TrimSpace(checklist) {
		t.Fatalf("status after the note was cleared:\n%s\nwant the checklist as the run wrote it:\n%s", got, checklist)
	}
	f.comments = nil // a maintainer deleted it
	if err := life.StatusNote(ctx, "o", "r", 1, "PR #2 waits for CI"); err != nil {
		t.Fatal(err)
	}
	if f.lists != 1 || len(f.comments) != 1 || !strings.Contains(f.comments[0].GetBody(), "waits for CI") {
		t.Fatalf("lists %d, comments %d after the comment was deleted; want a listing and a new status comment", f.lists, len(f.comments))
	}
	if id, _, ok := memo.Last(ctx, "o/r", 1); !ok || id != f.comments[0].GetID() {
		t.Fatalf("memo %d, %v; want the new comment %d", id, ok, f.comments[0].GetID())
	}
}
