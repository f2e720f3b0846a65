package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v60/github"
)

// taskList writes the subtasks into the parent issue's body as a task list
// between markers, replacing an earlier one: where the server has no
// sub-issues API (GitHub Enterprise Server 3.19), this is how the parent
// shows and tracks its parts.
func (h *GitHubHost) taskList(ctx context.Context, subs []int) error {
	is, _, err := h.Client.Issues.Get(ctx, h.Owner, h.Name, h.Number)
	if err != nil {
		return fmt.Errorf("read %s#%d for its task list: %w", h.repo(), h.Number, err)
	}
	body := WithTaskList(is.GetBody(), h.Prefix, subs)
	if _, _, err := h.Client.Issues.Edit(ctx, h.Owner, h.Name, h.Number, &github.IssueRequest{Body: &body}); err != nil {
		return fmt.Errorf("write the task list of %s#%d: %w", h.repo(), h.Number, err)
	}
	return nil
}

// WithTaskList is body with its Warden task list set to subs.
func WithTaskList(body, prefix string, subs []int) string {
	open, end := fmt.Sprintf("<!-- %s:subtasks -->", prefix), fmt.Sprintf("<!-- /%s:subtasks -->", prefix)
	if i := strings.Index(body, open); i >= 0 {
		if j := strings.Index(body[i:], end); j >= 0 {
			body = body[:i] + body[i+j+len(end):]
		}
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(body, "\n"))
	b.WriteString("\n\n" + open + "\n**Subtasks** (Warden):\n")
	for _, n := range subs {
		fmt.Fprintf(&b, "- [ ] #%d\n", n)
	}
	b.WriteString(end + "\n")
	return b.String()
}
