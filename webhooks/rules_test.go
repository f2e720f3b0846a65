package webhooks

import (
	"testing"
)

// merge_group: a destroyed group that did not merge queues a "dequeued"
// evaluation of the PR its head ref names; checks_requested and a merged
// group queue nothing (GitHub's payloads from @octokit/webhooks-examples).
func TestMergeGroupRoutes(t *testing.T) {
	r := newRig()
	body := withInstallation(t, fixture(t, "merge_group.checks_requested.json"), nil)
	if _, dec := r.post(t, "merge_group", "mg-1", body, nil); dec.Status != "ignored" || len(r.q.prs) != 0 {
		t.Fatalf("checks_requested: %+v, queued %v", dec, r.q.prs)
	}
	body = withInstallation(t, fixture(t, "merge_group.destroyed.json"), func(m map[string]any) { m["reason"] = "merged" })
	if _, dec := r.post(t, "merge_group", "mg-2", body, nil); dec.Status != "ignored" || len(r.q.prs) != 0 {
		t.Fatalf("merged group: %+v, queued %v", dec, r.q.prs)
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
