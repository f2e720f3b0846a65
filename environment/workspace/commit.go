package workspace

import (
	"context"
	"fmt"
	"strings"
)

// git runs a git command on the worktree with its recorded git directory
// and work tree named explicitly, so nothing a repository command wrote
// (the .git file, a nested .git) decides which repository or config git
// uses; and only while .git is still the file git wrote, so a tree someone
// changed it in is never touched by Warden's git again.
func (w *Worktree) git(ctx context.Context, token string, env []string, args ...string) (string, error) {
	return w.remote(ctx, "", token, env, args...)
}

// queries are the git commands Query runs: they read, never write.
var queries = map[string]bool{"rev-parse": true, "status": true, "ls-files": true, "rev-list": true, "diff": true}

// Query runs one read-only git command (rev-parse, status, ls-files,
// rev-list, diff without external or textconv drivers) on the
// worktree as Warden runs all of its git: on the recorded git directory,
// with the neutral configuration, only while .git is what git wrote. It is
// what the repository index lists and checks the worktree with.
func (w *Worktree) Query(ctx context.Context, args ...string) (string, error) {
	if len(args) == 0 || !queries[args[0]] {
		return "", fmt.Errorf("git %s is not a query", strings.Join(args, " "))
	}
	if args[0] == "diff" {
		args = append([]string{"diff", "--no-ext-diff", "--no-textconv"}, args[1:]...)
	}
	return w.git(ctx, "", nil, args...)
}

// remote is git on the worktree talking to remoteURL (a URL Warden was
// given, never one read from the worktree; "" for none).
func (w *Worktree) remote(ctx context.Context, remoteURL, token string, env []string, args ...string) (string, error) {
	if err := w.Tree().Verify(); err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return w.m.run(ctx, gitCmd{gitDir: w.gitDir, workTree: w.Dir, token: token, local: remoteURL != "" && localURL(remoteURL), env: env}, args...)
}

// CheckedOut is the commit HEAD is at, known without asking git: Head,
// until Warden's own git moves HEAD (a commit, a merge); "" after. Nothing
// else can move it: commands run with the git directory read-only.
func (w *Worktree) CheckedOut() string {
	if w.headMoved {
		return ""
	}
	return w.Head
}

// JudgedTree is the tree object the guards last judged, or "".
func (w *Worktree) JudgedTree() string { return w.judged }

// Commit records the tree the guards judged (the last Changes) as one commit
// on the task's branch, without hooks and without reading the worktree
// again: whatever a command changed on disk after the judgement is not in
// it. Run again with nothing new, it returns the existing commit, so a
// retried release is idempotent.
func (w *Worktree) Commit(ctx context.Context, msg, name, email string) (string, error) {
	if w.judged == "" {
		if _, err := w.Changes(ctx); err != nil {
			return "", fmt.Errorf("judge the worktree before committing: %w", err)
		}
	}
	head, headTree := w.Head, w.headTree
	if w.headMoved || headTree == "" {
		var err error
		if head, headTree, err = w.headAndTree(ctx); err != nil {
			return "", err
		}
	}
	if headTree == w.judged {
		if head == w.BaseSHA || head == w.Head {
			return "", ErrNothingToCommit
		}
		w.commit = head
		return head, nil
	}
	who := []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email, "GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
	parents := []string{"-p", head}
	if w.merging != "" {
		parents = append(parents, "-p", w.merging)
	}
	out, err := w.git(ctx, "", who, append(append([]string{"commit-tree", w.judged}, parents...), "-m", msg)...)
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(out)
	w.headMoved = true
	if _, err := w.git(ctx, "", nil, "update-ref", "refs/heads/"+w.Branch, sha, head); err != nil {
		return "", err
	}
	if w.merging != "" {
		_, _ = w.git(ctx, "", nil, "merge", "--quit") // the merge is concluded by this commit
		w.merging = ""
	}
	w.commit = sha
	return sha, nil
}

// Push force-pushes exactly the committed commit to the task's branch with
// per-command auth, then reads the branch back: its commit (and so its tree)
// must be the one the guards judged.
func (w *Worktree) Push(ctx context.Context, remoteURL, token string) error {
	sha, err := w.committed(ctx)
	if err != nil {
		return err
	}
	ref := "refs/heads/" + w.Branch
	if _, err := w.remote(ctx, remoteURL, token, nil, "push", "--force", "--quiet", "--no-verify", remoteURL, sha+":"+ref); err != nil {
		return err
	}
	return w.readBack(ctx, remoteURL, token, ref, sha)
}

// readBack checks that the remote branch is at the judged commit.
func (w *Worktree) readBack(ctx context.Context, remoteURL, token, ref, sha string) error {
	out, err := w.remote(ctx, remoteURL, token, nil, "ls-remote", remoteURL, ref)
	if err != nil {
		return fmt.Errorf("read back %s: %w", ref, err)
	}
	if got, _, _ := strings.Cut(strings.TrimSpace(out), "\t"); got != sha {
		return fmt.Errorf("the remote %s is at %q, not the judged commit %s", ref, got, sha)
	}
	return nil
}

// committed is the commit Commit made, or HEAD when none was made here
// (a retried release finds its commit on the branch).
func (w *Worktree) committed(ctx context.Context) (string, error) {
	if w.commit != "" {
		return w.commit, nil
	}
	return w.revParse(ctx, "HEAD")
}

func (w *Worktree) revParse(ctx context.Context, rev string) (string, error) {
	out, err := w.git(ctx, "", nil, "rev-parse", "--verify", rev)
	return strings.TrimSpace(out), err
}

// headAndTree reads HEAD's commit and tree with one git process; "--"
// ends the revisions, so no file of the worktree is read as one.
func (w *Worktree) headAndTree(ctx context.Context) (head, tree string, err error) {
	out, err := w.git(ctx, "", nil, "rev-parse", "HEAD", "HEAD^{tree}", "--")
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	f := strings.Fields(out)
	if len(f) != 3 || f[2] != "--" {
		return "", "", fmt.Errorf("read HEAD: rev-parse said %q", out)
	}
	return f[0], f[1], nil
}
