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
	// A commit through the Git Database API (push.go).
	"gitdb.Create(",
}

// worktreePushes are a workspace.Worktree's pushes (push.go): checked in
// the files that import the workspace, as ".Push(" alone names many things.
var worktreePushes = []string{".Push(", ".PushOnto("}

const workspaceImport = `"github.com/warden-bot/warden/environment/workspace"`

// allowed are the files that may make a covered call, each with its reason
// (as trusted/lint_test.go allows its exceptions).
var allowed = map[string]string{
	"pipeline/local.go": "`bot run` (cli/localrun) leaves its branch in the local repository it was given: no GitHub, nothing to journal",
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[filepath.ToSlash(rel)] != "" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range covered(string(b)) {
			bad = append(bad, rel+": "+c)
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

// covered lists the covered calls src makes.
func covered(src string) []string {
	var out []string
	for _, c := range calls {
		if strings.Contains(src, c) {
			out = append(out, c)
		}
	}
	if strings.Contains(src, workspaceImport) {
		for _, c := range worktreePushes {
			if strings.Contains(src, c) {
				out = append(out, c+" (a workspace.Worktree's push)")
			}
		}
	}
	return out
}

// The allowed files still exist: an exception outliving its file would
// silently allow the next file of that name.
func TestLintExceptionsExist(t *testing.T) {
	for f, why := range allowed {
		if _, err := os.Stat(filepath.Join("..", f)); err != nil {
			t.Errorf("exception %s (%s): %v", f, why, err)
		}
	}
}
