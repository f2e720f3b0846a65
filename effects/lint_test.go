package effects

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calls are the GitHub side effects only this package may cause: a call
// elsewhere bypasses the journal and the strict reading of GitHub's answer.
var calls = []string{
	"enqueuePullRequest(", "dequeuePullRequest(",
	"enablePullRequestAutoMerge(", "disablePullRequestAutoMerge(",
	"EnqueuePullRequestInput{", "DequeuePullRequestInput{",
	"EnablePullRequestAutoMergeInput{", "DisablePullRequestAutoMergeInput{",
	"PullRequests.Merge(", "PullRequests.RequestReviewers(",
	// A thread reply: POST pulls/{n}/comments with in_reply_to (reply.go),
	// however its body is built, or go-github's calls for it.
	`"in_reply_to"`, "CreateCommentInReplyTo(", "PullRequests.CreateComment(",
}

// Production code outside effects/ does not call those mutations itself
// (tests and the fakes answering them may name them).
func TestEffectsGoThroughThisPackage(t *testing.T) {
	root := ".."
	var bad []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "effects" || rel == "test" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range calls {
			if strings.Contains(string(b), c) {
				bad = append(bad, rel+": "+c)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("GitHub side effects called outside package effects (route them through it):\n  %s", strings.Join(bad, "\n  "))
	}
}
