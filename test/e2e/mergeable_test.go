package e2e

import (
	"strings"
	"testing"
	"time"
)

// #27 item 8, through the real binary: GitHub answers `mergeable: null`
// (still computing) for the first looks at a green PR. Warden makes no
// merge call meanwhile, says on the issue what the PR waits for, looks
// again by itself (no event comes) and merges once GitHub has computed it.
func TestMergeableNullWaitsThenMerges(t *testing.T) {
	w := withOpenPR(t, 73, "maintenance")
	p := w.Pull()
	// The look after the PR's opening first (no CI yet): it must not take
	// one of the null answers, nor see the green check set below.
	w.Eventually(30*time.Second, func() bool {
		return strings.Contains(w.CommentWith(73, "<!-- warden:status -->"), "no CI has reported on this head")
	}, "the PR's first look did not run")
	w.GH.SetMergeableComputing(repo, p.Number, 2)
	w.CheckRun(p, "success")
	w.Eventually(30*time.Second, func() bool {
		return strings.Contains(w.CommentWith(73, "<!-- warden:status -->"), "GitHub is still computing whether the PR can merge")
	}, "the status comment does not say the PR waits for GitHub's mergeability")
	if n := w.GH.CountCalls("PUT", "/repos/"+repo+"/pulls/"); n != 0 {
		t.Fatalf("%d merge calls while GitHub was computing mergeability", n)
	}
	w.Eventually(60*time.Second, func() bool { return w.Pull().Merged }, "not merged once GitHub computed mergeable")
	w.Eventually(10*time.Second, func() bool { return w.HasLabel(73, "warden:completed") }, "issue not marked completed")
	if n := w.GH.CountCalls("PUT", "/repos/"+repo+"/pulls/"); n != 1 {
		t.Fatalf("%d merge calls, want 1", n)
	}
}
