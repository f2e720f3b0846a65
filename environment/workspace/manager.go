package workspace

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/warden-bot/warden/sandbox"
)

// Options configure a Manager.
type Options struct {
	GitTimeout time.Duration // per git command; default 2m
	Logger     *slog.Logger
	Git        string // git binary; default "git"
	// Park is how many finished worktrees a repository keeps for reuse
	// (park.go); 0 removes each task's worktree.
	Park int
}

// Manager owns <dataDir>/mirrors and <dataDir>/worktrees.
type Manager struct {
	dir  string
	home string
	opts Options

	mu    sync.Mutex
	locks map[string]*sync.Mutex
	urls  map[string]string // mirror → the origin URL this process set (mirror.go)
}

// New prepares the data directory.
func New(dataDir string, opts Options) (*Manager, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if opts.GitTimeout <= 0 {
		opts.GitTimeout = 2 * time.Minute
	}
	if opts.Git == "" {
		opts.Git = "git"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", abs, err)
	}
	// Git writes resolved paths into a worktree's .git and its gitdir:
	// the recorded ones must be the same paths, byte for byte.
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, err
	}
	m := &Manager{dir: abs, home: filepath.Join(abs, "home"), opts: opts, locks: map[string]*sync.Mutex{}, urls: map[string]string{}}
	for _, d := range []string{m.home, filepath.Join(abs, "mirrors"), filepath.Join(abs, "worktrees")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	return m, nil
}

// lock serializes mirror fetches and worktree changes of one repository.
func (m *Manager) lock(repo string) func() {
	m.mu.Lock()
	l, ok := m.locks[repo]
	if !ok {
		l = &sync.Mutex{}
		m.locks[repo] = l
	}
	m.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (m *Manager) mirrorDir(repo string) string {
	return filepath.Join(m.dir, "mirrors", safe(repo)+".git")
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '/' {
			return r
		}
		return '_'
	}, strings.ReplaceAll(s, "..", "__"))
}

// PrepareRequest asks for a fresh worktree for one task.
type PrepareRequest struct {
	Repo       string // owner/name
	RepoID     int64  // GitHub's id of the repository; a name whose id changed starts clean (identity.go)
	CloneURL   string // used exactly as given
	Token      string // installation token, may be empty
	BaseBranch string // the default branch
	Branch     string // the task's branch, e.g. warden/12-fix-add
	TaskKey    string // names the worktree directory
	// Start, when set, is the commit to check out instead of the default
	// branch's head (a follow-up continues its PR's head); BaseSHA is then
	// its merge base with the default branch, so guards judge the PR's
	// whole diff.
	Start string
	// Fetched says Fetch succeeded for this task: Prepare does not fetch
	// again unless the mirror is gone since (another id took the name).
	Fetched bool
}

// Worktree is one task's checkout.
type Worktree struct {
	Dir     string
	Branch  string
	BaseSHA string
	// Head is the commit checked out at start: BaseSHA, or a follow-up's
	// PR head. Reset returns to it.
	Head    string
	BaseTip string // the default branch's head when the worktree was made
	repo    string
	mirror  string
	m       *Manager
	indexMu sync.Mutex // the private index (index.go) serves one command at a time
	// gitDir is the worktree's administrative directory, found from the
	// mirror's side right after git created (or moved) the worktree: every
	// git command Warden runs on the worktree names it, and the worktree's
	// .git must stay the file git wrote for it (sandbox.Tree.Verify).
	gitDir   string
	judged   string     // the tree the guards last judged (Changes); Commit commits exactly it
	judgedOn string     // the BaseSHA judged was judged against
	memo     *judgement // the change list read for the last tree judged (judge.go)
	commit   string     // the commit made of judged; Push pushes exactly it
	merging  string     // the base tip a conflicted MergeBase merges: Commit's second parent
	huge     []hugeFile // the files the last withIndex left out of the index (MaxHashed)
	// headMoved is set once Warden's git moves HEAD from Head (CheckedOut).
	headMoved bool
	headTree  string // Head's tree when Prepare read it with the base ("" unknown)
}

// Dir is the manager's root under the data dir; other per-repository caches
// (the repository index) live beside its mirrors and worktrees.
func (m *Manager) Dir() string { return m.dir }

// Prepare fetches the mirror (cloning it the first time) and creates the
// task's worktree on a fresh branch from the default branch's head, replacing
// any stale worktree of the same task.
func (m *Manager) Prepare(ctx context.Context, req PrepareRequest) (*Worktree, error) {
	if req.BaseBranch == "" {
		req.BaseBranch = "main"
	}
	mirror := m.mirrorDir(req.Repo)
	unlock := m.lock(mirror)
	defer unlock()
	if err := m.claimIdentity(req.Repo, req.RepoID); err != nil {
		return nil, err
	}
	if !req.Fetched || !exists(filepath.Join(mirror, "HEAD")) {
		if err := m.syncMirror(ctx, mirror, req); err != nil {
			return nil, err
		}
	}
	sha, tree, err := m.tip(ctx, mirror, req.BaseBranch)
	if err != nil {
		return nil, fmt.Errorf("default branch %s of %s: %w", req.BaseBranch, req.Repo, err)
	}
	wt := &Worktree{Dir: filepath.Join(m.dir, "worktrees", safe(req.TaskKey)), Branch: req.Branch, BaseSHA: sha, repo: req.Repo, mirror: mirror, m: m}
	wt.Head, wt.BaseTip, wt.headTree = sha, sha, tree
	if req.Start != "" {
		wt.headTree = "" // Commit reads it
		if err := m.startAt(ctx, wt, req.Start); err != nil {
			return nil, fmt.Errorf("start %s at %s: %w", req.TaskKey, req.Start, err)
		}
	}
	add := m.addWorktree
	if m.opts.Park > 0 {
		resetExclude(mirror)
		add = m.takeParked
	}
	if err := add(ctx, wt); err != nil {
		return nil, fmt.Errorf("create worktree for %s: %w", req.TaskKey, err)
	}
	return wt, nil
}

// Tree is the worktree as Warden recorded it, for the sandbox.
func (w *Worktree) Tree() sandbox.Tree {
	return sandbox.Tree{Dir: w.Dir, GitDir: w.gitDir, Common: w.mirror}
}

// addWorktree checks out wt on its branch at its base, replacing a stale
// worktree of the same task; the mirror's lock is held.
func (m *Manager) addWorktree(ctx context.Context, wt *Worktree) error {
	if _, err := os.Lstat(wt.Dir); err == nil {
		m.removeLocked(ctx, wt.mirror, wt.Dir) // left on disk
	}
	add := func() error {
		if _, err := m.git(ctx, wt.mirror, "", nil, "worktree", "add", "--force", "-B", wt.Branch, wt.Dir, wt.Head); err != nil {
			return err
		}
		return m.record(wt)
	}
	if err := add(); err != nil {
		// Registered with its directory gone (a crash mid-removal): the
		// branch counts as checked out there until the mirror is pruned.
		m.removeLocked(ctx, wt.mirror, wt.Dir)
		return add()
	}
	return nil
}

// Remove deletes a task's worktree and its local branch, or parks the
// worktree for the repository's next task (Options.Park).
func (m *Manager) Remove(ctx context.Context, w *Worktree) error {
	if m.opts.Park > 0 {
		err := m.park(ctx, w)
		if err == nil {
			return nil
		}
		m.opts.Logger.Info("worktree not parked", "dir", w.Dir, "err", err)
	}
	unlock := m.lock(w.mirror)
	defer unlock()
	m.removeLocked(ctx, w.mirror, w.Dir)
	_, _ = m.git(ctx, w.mirror, "", nil, "branch", "-D", w.Branch)
	if _, err := os.Stat(w.Dir); err == nil {
		return fmt.Errorf("worktree %s still exists", w.Dir)
	}
	return nil
}

// removeLocked deletes a worktree without running git in it (it may hold
// anything a command left, a rewritten .git included), then lets the mirror
// forget it.
func (m *Manager) removeLocked(ctx context.Context, mirror, dir string) {
	fixModes(dir)
	_ = os.RemoveAll(dir)
	_, _ = m.git(ctx, mirror, "", nil, "worktree", "prune")
}
