// Package workspace owns Warden's disk: a bare mirror per repository, a git
// worktree per task, and the sandboxed runner for repository commands. It
// knows git, not models or GitHub's API.
package workspace

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/warden-bot/warden/sandbox"
)

// neutral is the configuration every git command Warden runs starts with,
// ahead of any file: nothing git reads from a repository, a worktree or an
// attribute may make it run a program (hooks, an fsmonitor, an ssh command,
// a credential helper, a submodule fetch) or reach a transport other than
// https and http — ext:: never, file only for Warden's own local remotes
// (a file:// clone URL from the configuration, as the tests use). Filter,
// textconv and merge drivers are programs only where configuration names
// them: the only configuration git reads is the mirror's, which Warden alone
// writes (no sandbox can), and diffs run with --no-ext-diff --no-textconv.
var neutral = [][2]string{
	{"core.hooksPath", "/dev/null"},
	{"core.fsmonitor", "false"},
	{"core.sshCommand", "false"},
	{"core.attributesFile", "/dev/null"},
	{"core.bigFileThreshold", "32m"}, // larger files are streamed, never read whole
	{"credential.helper", ""},
	{"submodule.recurse", "false"},
	{"fetch.recurseSubmodules", "false"},
	{"protocol.allow", "never"},
	{"protocol.https.allow", "always"},
	{"protocol.http.allow", "always"},
	{"commit.gpgsign", "false"},
}

// gitEnv is the whole environment of a git command: nothing inherited but
// PATH, no system or global configuration, the neutral configuration, and
// the token (when set) in GIT_CONFIG_* for this one process only — never
// argv, never a remote URL, never a file. local allows the file transport,
// for a remote Warden itself named as a local path.
func (m *Manager) gitEnv(token string, local bool, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + m.home, "LANG=C", "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1", "GIT_NO_REPLACE_OBJECTS=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false", "SSH_ASKPASS=/bin/false", "GIT_SSH_COMMAND=false", "GIT_PROTOCOL_FROM_USER=0",
	}
	cfg := append([][2]string(nil), neutral...)
	file := "never"
	if local {
		file = "always"
	}
	cfg = append(cfg, [2]string{"protocol.file.allow", file})
	if token != "" {
		auth := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
		cfg = append(cfg, [2]string{"http.extraHeader", "Authorization: Basic " + auth})
	}
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(cfg)))
	for i, kv := range cfg {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return append(env, extra...)
}

// localURL reports whether a remote Warden names is a local path.
func localURL(u string) bool {
	return strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "/")
}

// GitError is a failed git command with its (redacted) stderr.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

func (e *GitError) Unwrap() error { return e.Err }

// maxGitOutput bounds what Warden keeps of one git command's output: past
// it the command fails instead of growing Warden's memory.
const maxGitOutput = 64 << 20

// gitCmd is one git command as Warden runs it: always on a repository it
// names (GIT_DIR), with the work tree it names (GIT_WORK_TREE) or none, so
// git never discovers a repository from a directory.
type gitCmd struct {
	gitDir, workTree string
	token            string
	local            bool // the file transport is allowed (a local remote)
	env              []string
}

// git runs one git command on the repository gitDir (a mirror), with no
// work tree, and returns its stdout.
func (m *Manager) git(ctx context.Context, gitDir, token string, extraEnv []string, args ...string) (string, error) {
	return m.run(ctx, gitCmd{gitDir: gitDir, token: token, env: extraEnv}, args...)
}

func (m *Manager) run(ctx context.Context, c gitCmd, args ...string) (string, error) {
	if !filepath.IsAbs(c.gitDir) {
		return "", fmt.Errorf("git %s: no git directory named", strings.Join(args, " "))
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.GitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.opts.Git, args...)
	env := []string{"GIT_DIR=" + c.gitDir}
	cmd.Dir = c.gitDir
	if c.workTree != "" {
		env = append(env, "GIT_WORK_TREE="+c.workTree)
		cmd.Dir = c.workTree
	}
	cmd.Env = m.gitEnv(c.token, c.local, append(env, c.env...)...)
	cmd.WaitDelay = 5 * time.Second
	out, errb := &boundedBuffer{max: maxGitOutput, fail: true}, &boundedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Run(); err != nil {
		stderr := errb.String()
		if c.token != "" {
			stderr = strings.ReplaceAll(stderr, c.token, "[REDACTED]")
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (git timed out or was canceled)", ctx.Err())
		}
		if out.over {
			err = fmt.Errorf("its output passed %d MiB: %w", maxGitOutput>>20, err)
		}
		return out.String(), &GitError{Args: args, Stderr: stderr, Err: err}
	}
	return out.String(), nil
}

// boundedBuffer keeps at most max bytes. With fail, a write past it fails,
// which ends the writer (git gets EPIPE); without, the rest is dropped.
type boundedBuffer struct {
	max  int
	fail bool
	b    bytes.Buffer
	over bool
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); len(p) > room {
		w.over = true
		if w.fail {
			return 0, fmt.Errorf("output over %d bytes", w.max)
		}
		w.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return w.b.Write(p)
}

func (w *boundedBuffer) String() string { return w.b.String() }

// corruptHints are git's words for a repository it cannot trust any more.
var corruptHints = []string{"not a git repository", "is not the file Warden wrote", "index file corrupt", "bad object", "unable to read tree", "object file", "is corrupt", "loose object", "bad signature", "unknown index entry format"}

// Corrupt reports whether err means the mirror or worktree is damaged and
// must be rebuilt from scratch (the supervisor's one_for_all path).
func Corrupt(err error) bool {
	if err == nil {
		return false
	}
	// A .git that is not what git wrote: the tree is never touched by
	// Warden's git again, only rebuilt.
	if errors.Is(err, sandbox.ErrTreeChanged) {
		return true
	}
	s := err.Error()
	// A full disk makes git fail to write objects ("unable to write loose
	// object file"), which reads like damage but is not: a fresh worktree
	// needs more space, not less, and the retry comes with backoff instead.
	if strings.Contains(strings.ToLower(s), "no space left on device") {
		return false
	}
	for _, h := range corruptHints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}
