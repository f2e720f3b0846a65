package pipeline

import (
	"context"
	"slices"

	"github.com/shurcooL/githubv4"
	"github.com/warden-bot/warden/github/githubapp"
)

// labelsAfter is a mutation's labelable as it is after the mutation.
type labelsAfter struct {
	Labelable struct {
		Labels struct{ Nodes []gqlLabel } `graphql:"labels(first: 100)"`
	}
}

// swapMutation adds the new state and then removes the old ones in one
// request: GraphQL runs a document's mutation fields one after the other,
// in order, so the issue keeps its add-then-remove order (never seen
// without a state, a label someone set meanwhile untouched).
type swapMutation struct {
	Add    labelsAfter `graphql:"add: addLabelsToLabelable(input: $input)"`
	Remove labelsAfter `graphql:"remove: removeLabelsFromLabelable(input: $remove)"`
}

// swapByGraphQL changes the state label to want in one request when the
// issue was read over GraphQL and every label involved has a known node
// id. It returns errNoIDs (nothing sent) when an id is missing, or when
// there is no old state to remove (REST's add alone is one call too).
// After it, h.labels is the issue's labels as GitHub answered.
func (h *GitHubHost) swapByGraphQL(ctx context.Context, want string) error {
	wantID, ok := h.labelIDs[want]
	if h.issueID == "" || !ok {
		return errNoIDs
	}
	var remove []githubv4.ID
	for _, l := range h.labels {
		if l == want || !h.isState(l) {
			continue
		}
		id, ok := h.labelIDs[l]
		if !ok {
			return errNoIDs
		}
		remove = append(remove, githubv4.ID(id))
	}
	if len(remove) == 0 {
		return errNoIDs
	}
	var m swapMutation
	add := githubv4.AddLabelsToLabelableInput{LabelableID: githubv4.ID(h.issueID), LabelIDs: []githubv4.ID{githubv4.ID(wantID)}}
	rm := githubv4.RemoveLabelsFromLabelableInput{LabelableID: githubv4.ID(h.issueID), LabelIDs: remove}
	if err := githubapp.GraphQL(h.Client).Mutate(ctx, &m, add, map[string]any{"remove": rm}); err != nil {
		return err
	}
	h.labels = make([]string, 0, len(m.Remove.Labelable.Labels.Nodes))
	for _, l := range m.Remove.Labelable.Labels.Nodes {
		h.labels = append(h.labels, l.Name)
	}
	return nil
}

func (h *GitHubHost) isState(label string) bool {
	return slices.ContainsFunc(States, func(s string) bool { return label == h.Prefix+":"+s })
}
