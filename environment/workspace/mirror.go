package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Fetch brings the repository's mirror up to date, creating it the first
// time: Prepare's first step, for a caller with other waiting to do
// meanwhile (reading the issue from GitHub), which then passes
// PrepareRequest.Fetched.
func (m *Manager) Fetch(ctx context.Context, req PrepareRequest) error {
	mirror := m.mirrorDir(req.Repo)
	unlock := m.lock(mirror)
	defer unlock()
	if err := m.claimIdentity(req.Repo, req.RepoID); err != nil {
		return err
	}
	return m.syncMirror(ctx, mirror, req)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// syncMirror fetches the repository into its mirror, creating the mirror
// the first time. The remote's URL is set once per mirror and process: the
// mirror's config is written by Warden alone, so a URL this process set
// (or created the mirror with) is still the one there, and the ~8 ms a
// `remote set-url` cost per task is spent only when the URL changes.
func (m *Manager) syncMirror(ctx context.Context, mirror string, req PrepareRequest) error {
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(mirror, 0o700); err != nil {
			return err
		}
		for _, args := range [][]string{
			{"init", "--bare", "--quiet"},
			{"remote", "add", "origin", req.CloneURL},
			{"config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"},
		} {
			if _, err := m.git(ctx, mirror, "", nil, args...); err != nil {
				os.RemoveAll(mirror)
				return fmt.Errorf("create mirror of %s: %w", req.Repo, err)
			}
		}
	} else if m.remoteURL(mirror) != req.CloneURL {
		if _, err := m.git(ctx, mirror, "", nil, "remote", "set-url", "origin", req.CloneURL); err != nil {
			m.setRemoteURL(mirror, "")
			return fmt.Errorf("mirror of %s: %w", req.Repo, err)
		}
	}
	m.setRemoteURL(mirror, req.CloneURL)
	if _, err := m.run(ctx, gitCmd{gitDir: mirror, token: req.Token, local: localURL(req.CloneURL)}, "fetch", "--prune", "--quiet", "origin"); err != nil {
		return fmt.Errorf("fetch %s: %w", req.Repo, err)
	}
	return nil
}

// remoteURL is the origin URL this process last gave mirror, or "".
func (m *Manager) remoteURL(mirror string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.urls[mirror]
}

func (m *Manager) setRemoteURL(mirror, url string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.urls[mirror] = url
}

// Sweep removes every worktree a crashed process left behind; call it at
// start, before any task runs. It returns how many it removed.
func (m *Manager) Sweep(ctx context.Context) (int, error) {
	entries, err := os.ReadDir(filepath.Join(m.dir, "worktrees"))
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		_ = os.RemoveAll(filepath.Join(m.dir, "worktrees", e.Name()))
	}
	mirrors, _ := filepath.Glob(filepath.Join(m.dir, "mirrors", "*", "*.git"))
	for _, mir := range mirrors {
		_, _ = m.git(ctx, mir, "", nil, "worktree", "prune")
	}
	if len(entries) > 0 {
		m.opts.Logger.Info("swept worktrees left by a previous process", "count", len(entries))
	}
	return len(entries), nil
}

// startAt points wt at start (a commit the mirror fetched) with its merge
// base against the default branch as BaseSHA.
func (m *Manager) startAt(ctx context.Context, wt *Worktree, start string) error {
	head, err := m.git(ctx, wt.mirror, "", nil, "rev-parse", "--verify", start+"^{commit}")
	if err != nil {
		return err
	}
	base, err := m.git(ctx, wt.mirror, "", nil, "merge-base", wt.BaseSHA, strings.TrimSpace(head))
	if err != nil {
		return err
	}
	wt.Head, wt.BaseSHA = strings.TrimSpace(head), strings.TrimSpace(base)
	return nil
}

// record sets wt.gitDir to the administrative directory git made for
// wt.Dir and checks the worktree's .git against it.
func (m *Manager) record(wt *Worktree) error {
	admin, err := adminOf(wt.mirror, wt.Dir)
	if err != nil {
		return err
	}
	wt.gitDir = admin
	return wt.Tree().Verify()
}

// adminOf finds a worktree's administrative directory from the mirror's
// side: the one whose gitdir file names dir/.git. The mirror is written by
// Warden's git alone; nothing of the worktree is read.
func adminOf(mirror, dir string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(mirror, "worktrees"))
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNotReusable, err)
	}
	want := filepath.Join(dir, ".git")
	for _, e := range entries {
		admin := filepath.Join(mirror, "worktrees", e.Name())
		if b, err := readSmall(filepath.Join(admin, "gitdir"), 4096); err == nil && strings.TrimSpace(string(b)) == want {
			return admin, nil
		}
	}
	return "", fmt.Errorf("%w: the mirror %s has no worktree at %s", errNotReusable, mirror, dir)
}

// tip reads the default branch's head in the mirror and its tree with one
// git process (the tree lets Commit skip reading HEAD back). The ref starts
// with "refs/", so it is never taken for an option; "--" ends the revisions.
func (m *Manager) tip(ctx context.Context, mirror, branch string) (commit, tree string, err error) {
	ref := "refs/remotes/origin/" + branch
	out, err := m.git(ctx, mirror, "", nil, "rev-parse", ref+"^{commit}", ref+"^{tree}", "--")
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(out)
	if len(f) != 3 || f[2] != "--" {
		return "", "", fmt.Errorf("rev-parse %s said %q", ref, out)
	}
	return f[0], f[1], nil
}
