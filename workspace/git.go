// Package workspace owns Warden's disk: a bare mirror per repository, a git
// worktree per task, and the sandboxed runner for repository commands. It
// knows git, not models or GitHub's API.
package workspace

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitEnv is the whole environment of a git command: nothing inherited but
// PATH, so no credential helper, askpass or user config can interfere, and
// the token (when set) travels in GIT_CONFIG_* for this one process only —
// never argv, never a remote URL, never a file.
func (m *Manager) gitEnv(token string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + m.home, "LANG=C", "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false", "SSH_ASKPASS=/bin/false",
	}
	if token != "" {
		auth := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+auth)
	}
	return append(env, extra...)
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

// git runs one git command in dir with a timeout and returns its stdout.
func (m *Manager) git(ctx context.Context, dir, token string, extraEnv []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.GitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.opts.Git, args...)
	cmd.Dir = dir
	cmd.Env = m.gitEnv(token, extraEnv...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		stderr := errb.String()
		if token != "" {
			stderr = strings.ReplaceAll(stderr, token, "[REDACTED]")
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (git timed out or was canceled)", ctx.Err())
		}
		return out.String(), &GitError{Args: args, Stderr: stderr, Err: err}
	}
	return out.String(), nil
}

// corruptHints are git's words for a repository it cannot trust any more.
var corruptHints = []string{"not a git repository", "index file corrupt", "bad object", "unable to read tree", "object file", "is corrupt", "loose object", "bad signature", "unknown index entry format"}

// Corrupt reports whether err means the mirror or worktree is damaged and
// must be rebuilt from scratch (the supervisor's one_for_all path).
func Corrupt(err error) bool {
	if err == nil {
		return false
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
