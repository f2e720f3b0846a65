package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Parked worktrees. Checking out and deleting every file of a repository
// per task was most of Warden's own time on a big repository
// (docs/BENCHMARKS.md): a finished task's worktree is cleaned and parked
// under <data>/parked/<repo>/, and the next task of the repository moves it
// back and checks out its base, which rewrites only the files that differ.
//
// Reuse is only safe if nothing of the earlier task survives, so a parked
// worktree is cleaned twice (when parked and when taken) and proven clean
// before it is handed out: `git status --porcelain --ignored` must be empty
// on the new base. Anything unexpected — a .git that is not the file git
// wrote, a checkout that fails, a leftover the clean cannot remove — discards
// the worktree without running git in it, and the task gets a fresh one.

// errNotReusable marks a worktree that must be discarded, not reused.
var errNotReusable = errors.New("worktree not reusable")

// keptAdmin are the files of a worktree's administrative directory that a
// clean worktree needs; anything else there (a task's info/exclude,
// config.worktree, a "locked" marker, lock files, reflogs) is removed.
var keptAdmin = map[string]bool{"HEAD": true, "commondir": true, "gitdir": true, "index": true, privateIndex: true}

func (m *Manager) parkedDir(repo string) string {
	return filepath.Join(m.dir, "parked", safe(repo))
}

// parked lists a repository's parked worktrees.
func (m *Manager) parked(repo string) []string {
	entries, _ := os.ReadDir(m.parkedDir(repo))
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(m.parkedDir(repo), e.Name()))
		}
	}
	return dirs
}

// takeParked moves a parked worktree of the repository to wt.Dir and sets
// it to wt's base, or creates a fresh one when none is parked or the parked
// one cannot be proven clean. The mirror's lock is held. No git command
// runs in a parked worktree before its .git is proven to be the file git
// wrote for the administrative directory the mirror records for it.
func (m *Manager) takeParked(ctx context.Context, wt *Worktree) error {
	if _, err := os.Lstat(wt.Dir); err == nil {
		m.removeLocked(ctx, wt.mirror, wt.Dir)
	}
	for _, dir := range m.parked(wt.repo) {
		parked := &Worktree{Dir: dir, mirror: wt.mirror, m: m}
		if err := m.record(parked); err != nil {
			m.discard(ctx, wt.mirror, dir, err)
			continue
		}
		if _, err := m.git(ctx, wt.mirror, "", nil, "worktree", "move", dir, wt.Dir); err != nil {
			m.discard(ctx, wt.mirror, dir, err)
			continue
		}
		err := m.record(wt)
		if err == nil {
			err = m.reuse(ctx, wt)
		}
		if err == nil {
			return nil
		}
		m.discard(ctx, wt.mirror, wt.Dir, err)
	}
	return m.addWorktree(ctx, wt)
}

// reuse checks a moved worktree out on the task's branch at its base and
// proves it holds exactly the base commit.
func (m *Manager) reuse(ctx context.Context, wt *Worktree) error {
	if err := m.scrubAdmin(wt, ""); err != nil {
		return err
	}
	if _, err := wt.git(ctx, "", nil, "checkout", "--quiet", "--force", "--no-recurse-submodules", "-B", wt.Branch, wt.Head); err != nil {
		return err
	}
	if _, err := wt.git(ctx, "", nil, "clean", "-ffdxq"); err != nil {
		return err
	}
	if err := normalise(ctx, wt); err != nil {
		return err
	}
	out, err := wt.git(ctx, "", nil, "status", "--porcelain", "--ignored", "--untracked-files=all")
	if err != nil {
		return err
	}
	if out != "" {
		return fmt.Errorf("%w: not clean after checkout: %.200s", errNotReusable, out)
	}
	return nil
}

// park cleans a finished task's worktree back to its base and parks it,
// unless the repository already keeps enough. An error means the worktree
// was not parked and must be removed; a worktree whose .git is not what git
// wrote never gets that far.
func (m *Manager) park(ctx context.Context, w *Worktree) error {
	if err := w.Tree().Verify(); err != nil {
		return fmt.Errorf("%w: %v", errNotReusable, err)
	}
	fixModes(w.Dir)
	if err := m.scrubAdmin(w, w.Branch); err != nil {
		return err
	}
	if _, err := w.git(ctx, "", nil, "checkout", "--quiet", "--force", "--no-recurse-submodules", "--detach", w.BaseSHA); err != nil {
		return err
	}
	if _, err := w.git(ctx, "", nil, "clean", "-ffdxq"); err != nil {
		return err
	}
	// Modes are set from the index when the tree is taken (reuse), right
	// before it is handed out: once is enough for a tree nothing touches
	// while parked.
	unlock := m.lock(w.mirror)
	defer unlock()
	_, _ = m.git(ctx, w.mirror, "", nil, "branch", "-D", w.Branch)
	have := m.parked(w.repo)
	if len(have) >= m.opts.Park {
		return fmt.Errorf("%d worktrees of %s parked already", len(have), w.repo)
	}
	if err := os.MkdirAll(m.parkedDir(w.repo), 0o700); err != nil {
		return err
	}
	dst := m.freeSlot(w.repo)
	if _, err := m.git(ctx, w.mirror, "", nil, "worktree", "move", w.Dir, dst); err != nil {
		return err
	}
	return nil
}

func (m *Manager) freeSlot(repo string) string {
	for i := 0; ; i++ {
		p := filepath.Join(m.parkedDir(repo), strconv.Itoa(i))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
}

// discard removes a worktree that may not be reused.
func (m *Manager) discard(ctx context.Context, mirror, dir string, why error) {
	m.opts.Logger.Warn("parked worktree discarded", "dir", dir, "err", why)
	m.removeLocked(ctx, mirror, dir)
}

// scrubAdmin empties the worktree's recorded administrative directory of
// everything a task may have left there: lock files of a killed command, an
// info/exclude, a per-worktree config, a lock marker. branch, when set, is
// the task's branch, whose ref lock in the mirror is removed too.
func (m *Manager) scrubAdmin(w *Worktree, branch string) error {
	admin := w.gitDir
	if admin == "" || !sameDir(filepath.Dir(admin), filepath.Join(w.mirror, "worktrees")) {
		return fmt.Errorf("%w: no recorded git directory for %s in the mirror", errNotReusable, w.Dir)
	}
	entries, err := os.ReadDir(admin)
	if err != nil {
		return fmt.Errorf("%w: %v", errNotReusable, err)
	}
	for _, e := range entries {
		if !keptAdmin[e.Name()] {
			if err := os.RemoveAll(filepath.Join(admin, e.Name())); err != nil {
				return fmt.Errorf("%w: %v", errNotReusable, err)
			}
		}
	}
	if branch != "" {
		_ = os.Remove(filepath.Join(w.mirror, "refs", "heads", filepath.FromSlash(branch)+".lock"))
	}
	return nil
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// fixModes gives the owner back the permissions a clean needs: a task may
// have made a directory unreadable or unwritable (nothing inside could be
// deleted) or a file unreadable (checkout could not compare it). Errors are
// left to the checkout and clean that follow, which fail and so discard it.
func fixModes(root string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if d == nil || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		need := fs.FileMode(0o600)
		if d.IsDir() {
			need = 0o700
		}
		// WalkDir calls this before it reads a directory, so a directory
		// made unreadable is opened up in time to be walked.
		if fi, ierr := d.Info(); err == nil && ierr == nil && fi.Mode().Perm()&need != need {
			_ = os.Chmod(p, fi.Mode().Perm()|need)
		}
		return nil
	})
}

// resetExclude empties the mirror's info/exclude, which every worktree of it
// reads: a pattern a task wrote there would hide the next task's new files
// from its diff.
func resetExclude(mirror string) {
	p := filepath.Join(mirror, "info", "exclude")
	b, err := os.ReadFile(p)
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			_ = os.WriteFile(p, nil, 0o644)
			return
		}
	}
}

// normalise sets every mode of a clean tree from its index: files 0644, or
// 0755 where the index says executable, directories 0755 — whatever the
// last task chmod-ed (issue #26 item 7: a `chmod 0777 .` survived into the
// next task's tree).
func normalise(ctx context.Context, w *Worktree) error {
	out, err := w.git(ctx, "", nil, "ls-files", "--stage", "-z")
	if err != nil {
		return err
	}
	executable := map[string]bool{}
	for _, e := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		if ok && strings.HasPrefix(meta, "100755 ") {
			executable[path] = true
		}
	}
	return filepath.WalkDir(w.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w: %v", errNotReusable, err)
		}
		rel, _ := filepath.Rel(w.Dir, p)
		if rel == ".git" || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		want := fs.FileMode(0o644)
		if d.IsDir() || executable[filepath.ToSlash(rel)] {
			want = 0o755
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("%w: %v", errNotReusable, err)
		}
		if fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != want {
			if err := os.Chmod(p, want); err != nil {
				return fmt.Errorf("%w: %v", errNotReusable, err)
			}
		}
		return nil
	})
}
