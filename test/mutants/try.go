package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	caught  = "caught"
	missed  = "MISSED"
	invalid = "INVALID"
)

type result struct {
	verdict, detail string
	took            time.Duration
}

// copyTree copies the checkout's tracked files, as they are in the work
// tree, into a new directory.
func copyTree() (string, error) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %w", err)
	}
	dir, err := os.MkdirTemp("", "warden-mutants-")
	if err != nil {
		return "", err
	}
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if err := copyFile(p, filepath.Join(dir, p)); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

func copyFile(src, dst string) error {
	fi, err := os.Lstat(src)
	if os.IsNotExist(err) { // deleted in the work tree, not yet in git
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, fi.Mode().Perm())
}

// try plants m in dir, runs its tests and undoes it.
func try(dir string, m mutant, timeout time.Duration) result {
	path := filepath.Join(dir, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return result{verdict: invalid, detail: err.Error()}
	}
	if n := strings.Count(string(orig), m.Find); n != 1 {
		return result{verdict: invalid, detail: fmt.Sprintf("find text occurs %d times in %s (want 1): stale entry", n, m.File)}
	}
	mutated := strings.Replace(string(orig), m.Find, m.Replace, 1)
	if err := os.WriteFile(path, []byte(mutated), 0o644); err != nil {
		return result{verdict: invalid, detail: err.Error()}
	}
	defer os.WriteFile(path, orig, 0o644)
	start := time.Now()
	out, runErr := goTest(dir, m.Test, timeout)
	r := result{took: time.Since(start)}
	switch {
	case runErr == nil:
		r.verdict, r.detail = missed, "the tests passed with the bug planted"
	case buildFailed.Match(out):
		r.verdict, r.detail = invalid, "the planted tree does not build: "+firstMatch(buildError, out)
	default:
		r.verdict, r.detail = caught, firstMatch(failLine, out)
		if m := seedLine.Find(out); m != nil { // the interleaving test's seed count
			r.detail += " " + string(m)
		}
	}
	return r
}

var (
	buildFailed = regexp.MustCompile(`(?m)\[build failed\]|\[setup failed\]|^# `)
	buildError  = regexp.MustCompile(`(?m)^\S+\.go:\d+:\d+: .*$`)
	failLine    = regexp.MustCompile(`(?m)^\s*--- FAIL: \S+.*$`)
	seedLine    = regexp.MustCompile(`caught at seed \d+ \(\d+ of \d+ seeds\)`)
)

func firstMatch(re *regexp.Regexp, out []byte) string {
	if m := re.Find(out); m != nil {
		return strings.TrimSpace(string(m))
	}
	return "(see go test output)"
}

// goTest runs `go test -count=1 -timeout T <args>` in dir; args are split as
// a shell would split simple words and single- or double-quoted strings.
func goTest(dir, args string, timeout time.Duration) ([]byte, error) {
	words, err := splitWords(args)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-count=1", "-trimpath", "-timeout", timeout.String()}, words...)...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if os.Getenv("MUTANTS_VERBOSE") != "" {
		os.Stdout.Write(buf.Bytes())
	}
	return buf.Bytes(), err
}

func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out, in = append(out, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote in test: %s", s)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
