// Package gitdb creates a commit on GitHub through its Git Database API
// (blobs, a tree on the base tree, a commit without author or committer,
// the ref), so that GitHub signs it as Verified: the path for branches
// under a rule that requires signed commits, where a git push is refused.
// The commit's tree must be the tree the guards judged, or no ref moves.
package gitdb

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// MaxBlob is the largest file sent as one blob. GitHub's Git Database API
// takes blobs up to 100 MB; a bigger file is refused here, before any call.
const MaxBlob = 100 << 20

// Git is the part of GitHub's Git Database API a commit needs
// (*github.GitService has it).
type Git interface {
	CreateBlob(ctx context.Context, owner, repo string, blob *github.Blob) (*github.Blob, *github.Response, error)
	CreateTree(ctx context.Context, owner, repo, baseTree string, entries []*github.TreeEntry) (*github.Tree, *github.Response, error)
	CreateCommit(ctx context.Context, owner, repo string, commit *github.Commit, opts *github.CreateCommitOptions) (*github.Commit, *github.Response, error)
	GetRef(ctx context.Context, owner, repo, ref string) (*github.Reference, *github.Response, error)
	CreateRef(ctx context.Context, owner, repo string, ref *github.Reference) (*github.Reference, *github.Response, error)
	UpdateRef(ctx context.Context, owner, repo string, ref *github.Reference, force bool) (*github.Reference, *github.Response, error)
}

// Entry is one path the commit changes against its first parent's tree:
// its git mode (100644, 100755, 120000, 160000) and object, or Delete.
type Entry struct {
	Path, Mode, SHA string
	Delete          bool
}

// Local is the commit Warden made locally, as GitHub must recreate it.
type Local struct {
	Tree     string   // the judged tree
	BaseTree string   // the first parent's tree
	Parents  []string // commits GitHub already has
	Message  string
	Entries  []Entry
}

// Objects reads a blob of the local repository.
type Objects interface {
	Blob(ctx context.Context, sha string) ([]byte, error)
}

// Target is where the commit goes: Ref (refs/heads/…) and, for a lease,
// Expect, the commit the ref must still be at. Without Expect the ref is
// created or forced, as `git push --force` would.
type Target struct {
	Owner, Repo, Ref, Expect string
}

// Result is the commit GitHub created and the calls it took.
type Result struct {
	SHA   string
	Calls int
}

// Create recreates local on GitHub and moves the ref to it. The tree
// GitHub computes must be local.Tree (the judged tree): otherwise nothing
// is moved and the error says so.
func Create(ctx context.Context, api Git, obj Objects, local Local, to Target) (Result, error) {
	c := &counter{api: api, to: to}
	entries, err := c.entries(ctx, obj, local.Entries)
	if err != nil {
		return Result{Calls: c.n}, err
	}
	tree, _, err := c.tree(ctx, local.BaseTree, entries)
	if err != nil {
		return Result{Calls: c.n}, fmt.Errorf("create tree on %s/%s: %w", to.Owner, to.Repo, err)
	}
	if got := tree.GetSHA(); got != local.Tree {
		return Result{Calls: c.n}, fmt.Errorf("GitHub's tree %s is not the judged tree %s: nothing pushed", got, local.Tree)
	}
	commit, err := c.commit(ctx, local)
	if err != nil {
		return Result{Calls: c.n}, err
	}
	if err := c.moveRef(ctx, commit); err != nil {
		return Result{Calls: c.n}, err
	}
	return Result{SHA: commit, Calls: c.n}, nil
}

// counter makes the calls of one commit and counts them.
type counter struct {
	api Git
	to  Target
	n   int
}

// entries uploads each changed file's content once (one blob per distinct
// object) and describes every change for the tree.
func (c *counter) entries(ctx context.Context, obj Objects, in []Entry) ([]*github.TreeEntry, error) {
	made := map[string]bool{}
	var out []*github.TreeEntry
	for _, e := range in {
		te := &github.TreeEntry{Path: github.String(e.Path), Mode: github.String(e.Mode), Type: github.String(kind(e.Mode))}
		if e.Delete {
			te.Mode, te.Type = github.String("100644"), github.String("blob") // sha null deletes the path
			out = append(out, te)
			continue
		}
		te.SHA = github.String(e.SHA)
		if e.Mode != "160000" && !made[e.SHA] { // a submodule's commit is not uploaded
			if err := c.blob(ctx, obj, e); err != nil {
				return nil, err
			}
			made[e.SHA] = true
		}
		out = append(out, te)
	}
	return out, nil
}

func kind(mode string) string {
	switch mode {
	case "160000":
		return "commit"
	case "040000":
		return "tree"
	}
	return "blob"
}

// blob uploads e's content and checks GitHub names it as git does.
func (c *counter) blob(ctx context.Context, obj Objects, e Entry) error {
	data, err := obj.Blob(ctx, e.SHA)
	if err != nil {
		return fmt.Errorf("read %s: %w", e.Path, err)
	}
	if len(data) > MaxBlob {
		return fmt.Errorf("%s is %d bytes, over GitHub's blob limit of %d: nothing pushed", e.Path, len(data), MaxBlob)
	}
	c.n++
	b, _, err := c.api.CreateBlob(ctx, c.to.Owner, c.to.Repo, &github.Blob{
		Content: github.String(base64.StdEncoding.EncodeToString(data)), Encoding: github.String("base64")})
	if err != nil {
		return fmt.Errorf("create blob for %s on %s/%s: %w", e.Path, c.to.Owner, c.to.Repo, err)
	}
	if b.GetSHA() != e.SHA {
		return fmt.Errorf("GitHub's blob for %s is %s, not %s: nothing pushed", e.Path, b.GetSHA(), e.SHA)
	}
	return nil
}

func (c *counter) tree(ctx context.Context, base string, entries []*github.TreeEntry) (*github.Tree, *github.Response, error) {
	c.n++
	return c.api.CreateTree(ctx, c.to.Owner, c.to.Repo, base, entries)
}

// commit creates the commit with no author or committer: GitHub fills
// them in for the App and signs it.
func (c *counter) commit(ctx context.Context, local Local) (string, error) {
	parents := make([]*github.Commit, 0, len(local.Parents))
	for _, p := range local.Parents {
		parents = append(parents, &github.Commit{SHA: github.String(p)})
	}
	c.n++
	got, _, err := c.api.CreateCommit(ctx, c.to.Owner, c.to.Repo, &github.Commit{
		Message: github.String(local.Message), Tree: &github.Tree{SHA: github.String(local.Tree)}, Parents: parents}, nil)
	if err != nil {
		return "", fmt.Errorf("create commit on %s/%s: %w", c.to.Owner, c.to.Repo, err)
	}
	if got.GetTree().GetSHA() != local.Tree {
		return "", fmt.Errorf("GitHub's commit %s has tree %s, not the judged tree %s: nothing pushed", got.GetSHA(), got.GetTree().GetSHA(), local.Tree)
	}
	return got.GetSHA(), nil
}
