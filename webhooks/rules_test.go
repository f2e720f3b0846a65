package webhooks

import (
	"fmt"
	"testing"
)

// merge_group: a group destroyed because its PR left the queue queues a
// "dequeued" evaluation of the PR its head ref names; checks_requested, a
// merged group and an invalidated one (rebuilt, the PR still queued) queue
// nothing (GitHub's payloads from @octokit/webhooks-examples).
func TestMergeGroupRoutes(t *testing.T) {
	r := newRig()
	body := withInstallation(t, fixture(t, "merge_group.checks_requested.json"), nil)
	if _, dec := r.post(t, "merge_group", "mg-1", body, nil); dec.Status != "ignored" || len(r.q.prs) != 0 {
		t.Fatalf("checks_requested: %+v, queued %v", dec, r.q.prs)
	}
	for i, reason := range []string{"merged", "invalidated"} { // the PR merged, or is still queued
		body = withInstallation(t, fixture(t, "merge_group.destroyed.json"), func(m map[string]any) { m["reason"] = reason })
		if _, dec := r.post(t, "merge_group", fmt.Sprintf("mg-2-%d", i), body, nil); dec.Status != "ignored" || len(r.q.prs) != 0 {
			t.Fatalf("%s group: %+v, queued %v", reason, dec, r.q.prs)
		}
	}
	body = withInstallation(t, fixture(t, "merge_group.destroyed.json"), nil)
	if _, dec := r.post(t, "merge_group", "mg-3", body, nil); dec.Status != "queued" || len(r.q.prs) != 1 {
		t.Fatalf("dequeued group: %+v, queued %v", dec, r.q.prs)
	}
	p := r.q.prs[0]
	if p.PR != 104 || p.Action != "dequeued" || p.Reason != "dequeued" || p.Repo != "octo-org/octo-repo" || p.Installation != 42 {
		t.Fatalf("payload = %+v", p)
	}
}

// A changed branch protection rule re-reads the repository's rules.
func TestRulesChangedRoutes(t *testing.T) {
	r := newRig()
	body := withInstallation(t, fixture(t, "branch_protection_rule.edited.json"), nil)
	if _, dec := r.post(t, "branch_protection_rule", "bp-1", body, nil); dec.Status != "queued" || len(r.q.prs) != 1 || r.q.prs[0].Action != "rules" {
		t.Fatalf("%+v, queued %v", dec, r.q.prs)
	}
}
