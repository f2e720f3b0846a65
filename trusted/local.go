package trusted

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Source says which commit a checkout's inputs were read from.
type Source struct {
	Ref, Commit string // the default branch as found, e.g. origin/main
	Current     string // the checkout's own branch ("" when detached)
}

// Differs reports whether the checkout is on another branch than the one
// read.
func (s Source) Differs() bool {
	return s.Current != strings.TrimPrefix(s.Ref, "origin/")
}

// LocalGit runs git in the checkout at dir.
func LocalGit(dir string) Git {
	return func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return string(out), err
	}
}

// DefaultBranch finds a checkout's default branch: the remote's (origin/HEAD),
// else the local branch init.defaultBranch names, else main or master.
func DefaultBranch(ctx context.Context, git Git) (Source, error) {
	var s Source
	if cur, err := git(ctx, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		s.Current = strings.TrimSpace(cur)
	}
	candidates := []string{}
	if ref, err := git(ctx, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil {
		candidates = append(candidates, strings.TrimSpace(ref))
	}
	if def, err := git(ctx, "config", "--get", "init.defaultBranch"); err == nil {
		candidates = append(candidates, strings.TrimSpace(def))
	}
	for _, ref := range append(candidates, "main", "master") {
		if ref == "" || strings.HasPrefix(ref, "-") {
			continue
		}
		sha, err := git(ctx, "rev-parse", "--verify", "--quiet", "refs/"+qualify(ref)+"^{commit}")
		if err == nil {
			s.Ref, s.Commit = ref, strings.TrimSpace(sha)
			return s, nil
		}
	}
	return s, fmt.Errorf("no default branch found (no origin/HEAD, init.defaultBranch, main or master)")
}

// qualify names a short ref under refs/: origin/x is a remote branch.
func qualify(ref string) string {
	if strings.HasPrefix(ref, "origin/") {
		return "remotes/" + ref
	}
	return "heads/" + ref
}

// ReadLocal reads the inputs of the checkout at dir from its default
// branch's head, whatever branch the checkout is on.
func ReadLocal(ctx context.Context, dir, defaultImage string) (*Inputs, Source, error) {
	git := LocalGit(dir)
	src, err := DefaultBranch(ctx, git)
	if err != nil {
		return nil, src, fmt.Errorf("%s: %w", dir, err)
	}
	in, err := Read(ctx, git, src.Commit, defaultImage)
	return in, src, err
}
