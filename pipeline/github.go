package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/gitdb"
	"github.com/warden-bot/warden/outcome"
)

// GitHubHost reports on a GitHub issue through an installation client.
type GitHubHost struct {
	Client   *github.Client
	Poster   *comments.Poster
	Owner    string
	Name     string
	Number   int
	Prefix   string
	BotLogin string
	BotID    int64 // 0: asked of BotIDOf when a commit needs it
	// BotIDOf answers the bot's user id when BotID is 0 (githubapp.App.BotID:
	// known once a comment's answer named it, else one GET /users/<login>).
	BotIDOf  func(ctx context.Context) (int64, error)
	CloneURL string
	Base     string // default branch
	Token    func(ctx context.Context) (string, error)
	// StatusLock, when set, is held while PriorOutcomes lists the issue's
	// comments. The "queued" update posts the status comment under the
	// same lock, and only while no run holds the issue, so the listing a
	// run remembers already shows any status comment it must edit: without
	// it a queued update landing just after that listing doubled the
	// status comment. It returns the unlock.
	StatusLock func(ctx context.Context) func()
	// KnownStatus, when set, answers the status comment id the "queued"
	// update remembered (0 for none): with the issue's comment count it can
	// spare the comment listing (feedback.go).
	KnownStatus func(ctx context.Context) int64
	// Expect, when set, is the head of the open PR this run continues:
	// Release pushes only onto it (a lease), never a force-push from base.
	Expect string
	// GraphQL reads the issue over GraphQL, with the node ids of its
	// labels, so that the run's last state change is one request
	// (labelswap.go); REST stays the fallback for every failure.
	GraphQL bool
	// Signed remembers the repositories whose branches require signed
	// commits (publish.go); nil: learned anew from each refused push.
	Signed *gitdb.Remember
	Log    *slog.Logger // nil: slog.Default
	// Installation is the App's installation, for the effects journal.
	Installation int64
	// Effects journals the review request (reviewers.go); nil: none.
	Effects *effects.Journal

	labels   []string          // the issue's labels as last read or written
	labelIDs map[string]string // label name → node id, when read over GraphQL
	issueID  string            // the issue's node id, when read over GraphQL
	statusID int64             // the sticky status comment, once found or created
	ownOnly  bool              // the issue read at start held only Warden's known comments
	comments int               // the issue's comment count as last read by Issue
	fresh    bool              // labels were just read by Issue
	counted  bool              // comments holds a count GitHub gave
}

func (h *GitHubHost) repo() string { return h.Owner + "/" + h.Name }

// CommitEmail is the App's commit e-mail, <id>+<login>@users.noreply.github.com,
// which GitHub links to the App's bot account.
func (h *GitHubHost) CommitEmail(ctx context.Context) (string, error) {
	if h.BotID == 0 && h.BotIDOf != nil {
		id, err := h.BotIDOf(ctx)
		if err != nil {
			return "", err
		}
		h.BotID = id
	}
	return fmt.Sprintf("%d+%s@users.noreply.github.com", h.BotID, h.BotLogin), nil
}

// Issue re-reads the issue. A run reads it under the status lock: a
// "queued" update is then seen whole (its comment and its label) or not at
// all, since it writes nothing once the run holds the issue; a read between
// its two writes cost the run a label call.
func (h *GitHubHost) Issue(ctx context.Context) (IssueInfo, error) {
	if h.StatusLock != nil {
		defer h.StatusLock(ctx)()
	}
	if h.GraphQL {
		if info, ok := h.issueByGraphQL(ctx); ok {
			h.labels, h.fresh = info.Labels, true
			return info, nil
		}
	}
	h.issueID, h.labelIDs = "", nil
	is, _, err := h.Client.Issues.Get(ctx, h.Owner, h.Name, h.Number)
	if err != nil {
		return IssueInfo{}, fmt.Errorf("get issue %s#%d: %w", h.repo(), h.Number, err)
	}
	info := IssueInfo{Title: is.GetTitle(), Body: is.GetBody(), Open: is.GetState() == "open", Author: is.GetUser().GetLogin(),
		Labels: labelNames(is.Labels)}
	h.labels = info.Labels
	h.comments, h.fresh, h.counted = is.GetComments(), true, is.Comments != nil
	return info, nil
}

// PriorOutcomes reads earlier attempts' records from Warden's own comments.
func (h *GitHubHost) PriorOutcomes(ctx context.Context) ([]outcome.Record, error) {
	if h.StatusLock != nil {
		defer h.StatusLock(ctx)()
	}
	if recs, ok := h.knownListing(ctx); ok {
		return recs, nil
	}
	return h.Poster.PriorOutcomes(ctx, h.Owner, h.Name, h.Number)
}

// Status upserts the sticky status comment. Its id is remembered, so each
// later update is one edit instead of a listing and an edit.
func (h *GitHubHost) Status(ctx context.Context, s comments.Status) error {
	body := comments.RenderStatus(s)
	if h.statusID != 0 {
		err := h.Poster.EditComment(ctx, h.Owner, h.Name, h.Number, h.statusID, body)
		if err == nil || !isStatus(err, http.StatusNotFound) {
			return err
		}
		h.statusID = 0 // someone deleted it: find or create it again
	}
	id, err := h.Poster.UpsertStatus(ctx, h.Owner, h.Name, h.Number, body)
	h.statusID = id
	return err
}

// Outcome posts (or repeats) the outcome comment.
func (h *GitHubHost) Outcome(ctx context.Context, rec outcome.Record, d comments.Details) error {
	return h.Poster.PostOutcome(ctx, h.Owner, h.Name, h.Number, rec, d)
}

// State leaves exactly one state label on the issue: the new one is added
// before the old ones go, so the issue is never seen without a state.
func (h *GitHubHost) State(ctx context.Context, state string) error {
	want := h.Prefix + ":" + state
	if done, err := h.swapFresh(ctx, want); done {
		return err
	}
	if err := h.swapByGraphQL(ctx, want); err == nil {
		return h.dropOtherStates(ctx, state)
	} else if !errors.Is(err, errNoIDs) {
		// Nothing the mutation answered is used; REST's add is idempotent
		// and its remove of an absent label a 404, so redoing it is safe.
		h.issueID = "" // and later changes go over REST too
	}
	// Adding is idempotent and answers the issue's labels as they are now:
	// another process (a late "queued" update) may have added a state since
	// this host last looked, and it must go too.
	got, _, err := h.Client.Issues.AddLabelsToIssue(ctx, h.Owner, h.Name, h.Number, []string{want})
	if err != nil {
		return fmt.Errorf("label %s#%d %s: %w", h.repo(), h.Number, want, err)
	}
	h.labels = labelNames(got)
	return h.dropOtherStates(ctx, state)
}

// labelNames are the names of labels GitHub answered, in a new slice: the
// last one read may be the IssueInfo a caller still holds.
func labelNames(got []*github.Label) []string {
	names := make([]string, 0, len(got))
	for _, l := range got {
		names = append(names, l.GetName())
	}
	return names
}

// dropOtherStates removes every state label but state from the issue's
// labels as last answered: another process (a late "queued" update) may
// have added one since this host last looked.
func (h *GitHubHost) dropOtherStates(ctx context.Context, state string) error {
	for _, s := range States {
		old := h.Prefix + ":" + s
		if s == state || !slices.Contains(h.labels, old) {
			continue
		}
		_, err := h.Client.Issues.RemoveLabelForIssue(ctx, h.Owner, h.Name, h.Number, old)
		if err != nil && !isStatus(err, http.StatusNotFound) {
			return fmt.Errorf("unlabel %s#%d %s: %w", h.repo(), h.Number, old, err)
		}
		h.labels = slices.DeleteFunc(h.labels, func(l string) bool { return l == old })
	}
	return nil
}

// Decompose opens one sub-issue per subtask, each referencing the parent,
// carrying the parent's mode label, linked through the sub-issues API where
// the server has it.
func (h *GitHubHost) Decompose(ctx context.Context, subtasks []Subtask) ([]int, error) {
	mode := ""
	for _, l := range h.labels {
		if strings.HasPrefix(l, h.Prefix+":maintenance") || strings.HasPrefix(l, h.Prefix+":evolution") {
			mode = l
		}
	}
	var out []int
	linked := true
	for i, st := range subtasks {
		body := fmt.Sprintf("%s\n\nPart of #%d (subtask %d of %d).\n\n<!-- %s:parent {\"issue\":%d,\"depth\":%d} -->", comments.Neutralize(st.Body), h.Number, i+1, len(subtasks), h.Prefix, h.Number, st.Depth)
		req := &github.IssueRequest{Title: github.String(st.Title), Body: github.String(body)}
		if mode != "" {
			req.Labels = &[]string{mode}
		}
		is, _, err := h.Client.Issues.Create(ctx, h.Owner, h.Name, req)
		if err != nil {
			return out, fmt.Errorf("create sub-issue %d of %s#%d: %w", i+1, h.repo(), h.Number, err)
		}
		out = append(out, is.GetNumber())
		linked = linked && h.linkSubIssue(ctx, is.GetID())
	}
	if !linked {
		// GitHub Enterprise Server has no sub-issues API: the parent lists
		// its subtasks as a task list instead, which GitHub tracks too.
		if err := h.taskList(ctx, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// linkSubIssue uses the sub-issues endpoint, which go-github v60 lacks, and
// reports whether the server took the link.
func (h *GitHubHost) linkSubIssue(ctx context.Context, id int64) bool {
	u := fmt.Sprintf("repos/%s/%s/issues/%d/sub_issues", h.Owner, h.Name, h.Number)
	req, err := h.Client.NewRequest(http.MethodPost, u, map[string]int64{"sub_issue_id": id})
	if err != nil {
		return false
	}
	_, err = h.Client.Do(ctx, req, nil)
	return err == nil
}

func isStatus(err error, code int) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == code
}
