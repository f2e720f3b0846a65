package branchrules

import (
	"fmt"
	"strings"
)

// Head is what GitHub says about a pull request's head that the rules judge.
type Head struct {
	// Contexts maps each check run name and status context on the head to
	// its state: "success", "pending" (queued, in progress, expected) or
	// "failure". GitHub counts neutral and skipped as passing a required check.
	Contexts map[string]string
	// Approvals counts writers (not Warden) whose latest review approves.
	Approvals int
	// ChangesRequested: a writer's latest review requests changes.
	ChangesRequested bool
}

// Waits lists, in GitHub's words, each requirement of the rules the head
// does not meet yet; empty when the rules let it merge. configured is the
// merge_method from .github/warden.yml ("" for the repository's choice);
// enterprise is true on GitHub Enterprise Server.
func (r Rules) Waits(h Head, configured string, enterprise bool) []string {
	var out []string
	for _, ctx := range r.RequiredChecks {
		switch h.Contexts[ctx] {
		case "":
			out = append(out, fmt.Sprintf("Required status check %q is expected.", ctx))
		case "pending":
			out = append(out, fmt.Sprintf("Required status check %q has not completed yet.", ctx))
		}
	}
	if h.ChangesRequested && r.Approvals > 0 {
		out = append(out, "Changes requested: a reviewer with write access requested changes, which must be addressed before merging.")
	}
	if n := r.Approvals; h.Approvals < n {
		out = append(out, approvalsWords(n))
	} else if r.CodeOwners && h.Approvals == 0 {
		out = append(out, "Waiting on code owner review.")
	}
	if r.Signatures && enterprise && !r.MergeQueue {
		// GitHub Enterprise Server's documentation: with required signatures,
		// pull requests cannot be merged into the branch on GitHub at all.
		out = append(out, "Commits must have verified signatures: on GitHub Enterprise Server a pull request cannot be merged on GitHub into a branch that requires them, so a maintainer merges it locally.")
	}
	if !r.MergeQueue && r.Method(configured) == "" {
		out = append(out, r.noMethodWords(configured))
	}
	return out
}

func approvalsWords(n int) string {
	if n == 1 {
		return "At least 1 approving review is required by reviewers with write access."
	}
	return fmt.Sprintf("At least %d approving reviews are required by reviewers with write access.", n)
}

// noMethodWords says why no merge method is left.
func (r Rules) noMethodWords(configured string) string {
	var why []string
	if configured != "" {
		why = append(why, fmt.Sprintf("merge_method in .github/warden.yml is %q", configured))
	}
	if r.RepoMethods != nil {
		why = append(why, "the repository allows "+list(r.RepoMethods))
	}
	if r.RuleMethods != nil {
		why = append(why, "its rules allow "+list(r.RuleMethods))
	}
	if r.Linear {
		why = append(why, "linear history is required (no merge commits)")
	}
	if r.Signatures {
		why = append(why, "commits must have verified signatures (only a squash merge, which GitHub signs for the pull request's author, lands Warden's unsigned commits)")
	}
	return "No merge method is allowed for this pull request: " + strings.Join(why, "; ") + "."
}

func list(ms []string) string {
	if len(ms) == 0 {
		return "no merge method"
	}
	return strings.Join(ms, ", ")
}

// Describe is a one-line summary of what the rules require, for the status
// comment of a pull request Warden does not merge itself (evolution).
func (r Rules) Describe() string {
	var parts []string
	if r.Approvals > 0 {
		parts = append(parts, fmt.Sprintf("%d approving review(s) from writers", r.Approvals))
	}
	if r.CodeOwners {
		parts = append(parts, "a code owner's review")
	}
	if len(r.RequiredChecks) > 0 {
		parts = append(parts, "the checks "+strings.Join(quoteAll(r.RequiredChecks), ", "))
	}
	if r.MergeQueue {
		parts = append(parts, "the merge queue")
	}
	if r.Signatures {
		parts = append(parts, "signed commits")
	}
	if r.Linear {
		parts = append(parts, "linear history")
	}
	return strings.Join(parts, ", ")
}

func quoteAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
