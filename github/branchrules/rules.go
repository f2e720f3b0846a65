// Package branchrules reads what a repository requires before a pull request
// may merge into a branch — rulesets, classic branch protection, the merge
// methods the repository allows — and judges a pull request against it. The
// decision is GitHub's; Warden reads it first so that it waits, and says why,
// instead of calling merge and being refused.
package branchrules

import (
	"encoding/json"
	"slices"
	"strings"
)

// The merge methods, in the order Warden prefers them (CONTRACT §12).
const (
	Squash = "squash"
	Merge  = "merge"
	Rebase = "rebase"
)

// Methods is every merge method, in preference order.
var Methods = []string{Squash, Merge, Rebase}

// Rules is what the base branch requires of a merge.
type Rules struct {
	// RequiredChecks are the contexts (check run names or status contexts)
	// that must be present and passing on the head.
	RequiredChecks []string
	// Approvals is the number of approving reviews required.
	Approvals        int
	CodeOwners       bool
	LastPushApproval bool
	DismissStale     bool
	ThreadResolution bool
	Signatures       bool
	Linear           bool
	// MergeQueue: merges must go through the merge queue, which merges with
	// QueueMethod.
	MergeQueue  bool
	QueueMethod string
	// RuleMethods are the methods a ruleset's pull_request rule allows
	// (nil: no such restriction).
	RuleMethods []string
	// RepoMethods are the methods the repository's settings allow as far
	// as a refusal told (nil: every method is assumed allowed until GitHub
	// refuses one).
	RepoMethods []string
}

// Without is methods minus m; nil (unknown) becomes every other method.
func Without(methods []string, m string) []string {
	if methods == nil {
		methods = Methods
	}
	return slices.DeleteFunc(slices.Clone(methods), func(s string) bool { return s == m })
}

// Allowed reports whether both the repository and its rules allow method m.
func (r Rules) Allowed(m string) bool {
	if r.RepoMethods != nil && !slices.Contains(r.RepoMethods, m) {
		return false
	}
	if r.RuleMethods != nil && !slices.Contains(r.RuleMethods, m) {
		return false
	}
	if r.Linear && m == Merge {
		return false // a merge commit is not linear history
	}
	return true
}

// Method picks the merge method: the configured one when given, else the
// first of squash, merge, rebase the rules allow. "" when none is allowed.
// With signed commits required only squash can land Warden's commits: its
// commits are pushed with git and unsigned, while GitHub signs the squash
// commit it creates for the pull request's author (Warden).
func (r Rules) Method(configured string) string {
	pick := func(m string) bool { return r.Allowed(m) && (!r.Signatures || m == Squash) }
	if configured != "" {
		if pick(configured) {
			return configured
		}
		return ""
	}
	for _, m := range Methods {
		if pick(m) {
			return m
		}
	}
	return ""
}

// rule is one entry of GET /repos/{owner}/{repo}/rules/branches/{branch}.
type rule struct {
	Type       string          `json:"type"`
	Parameters json.RawMessage `json:"parameters"`
}

// apply folds one ruleset rule into r; several rulesets add up, the
// strictest value of each requirement wins, as GitHub layers them.
func (r *Rules) apply(x rule) {
	switch x.Type {
	case "pull_request":
		var p struct {
			Allowed          []string `json:"allowed_merge_methods"`
			DismissStale     bool     `json:"dismiss_stale_reviews_on_push"`
			CodeOwners       bool     `json:"require_code_owner_review"`
			LastPush         bool     `json:"require_last_push_approval"`
			Approvals        int      `json:"required_approving_review_count"`
			ThreadResolution bool     `json:"required_review_thread_resolution"`
		}
		if json.Unmarshal(x.Parameters, &p) != nil {
			return
		}
		r.Approvals = max(r.Approvals, p.Approvals)
		r.DismissStale = r.DismissStale || p.DismissStale
		r.CodeOwners = r.CodeOwners || p.CodeOwners
		r.LastPushApproval = r.LastPushApproval || p.LastPush
		r.ThreadResolution = r.ThreadResolution || p.ThreadResolution
		if p.Allowed != nil {
			r.RuleMethods = intersect(r.RuleMethods, lowerAll(p.Allowed))
		}
	case "required_status_checks":
		var p struct {
			Checks []struct {
				Context string `json:"context"`
			} `json:"required_status_checks"`
		}
		if json.Unmarshal(x.Parameters, &p) != nil {
			return
		}
		for _, c := range p.Checks {
			r.addCheck(c.Context)
		}
	case "required_signatures":
		r.Signatures = true
	case "required_linear_history":
		r.Linear = true
	case "merge_queue":
		var p struct {
			Method string `json:"merge_method"`
		}
		_ = json.Unmarshal(x.Parameters, &p)
		r.MergeQueue, r.QueueMethod = true, strings.ToLower(p.Method)
	}
}

func (r *Rules) addCheck(ctx string) {
	if ctx != "" && !slices.Contains(r.RequiredChecks, ctx) {
		r.RequiredChecks = append(r.RequiredChecks, ctx)
	}
}

// intersect keeps what both lists allow; a nil list allows everything.
func intersect(have, more []string) []string {
	if have == nil {
		return more
	}
	out := []string{}
	for _, m := range have {
		if slices.Contains(more, m) {
			out = append(out, m)
		}
	}
	return out
}

func lowerAll(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, strings.ToLower(s))
	}
	return out
}
