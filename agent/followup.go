package agent

// FollowupInput fills the follow-up prompt: the implement prompt's inputs,
// the maintainers' feedback (already quoted and fenced) and the PR's diff.
type FollowupInput struct {
	EditInput EditInput
	PR        int
	Feedback  string
	Diff      string
}

// RenderFollowup renders the prompt of a follow-up attempt on Warden's own
// pull request. It shows the SEARCH/REPLACE format, like implement.
func RenderFollowup(in FollowupInput) (string, error) {
	in.Diff = tail(in.Diff, 2*maxQuoted)
	return render("followup", in)
}
