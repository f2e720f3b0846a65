package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/workspace"
)

type localArgs struct {
	repo, title, body, mode string
	issue                   int
	json                    bool
}

func parseLocal(args []string, stderr io.Writer) (localArgs, []string, error) {
	var la localArgs
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&la.repo, "repo", "", "path of a local git checkout")
	fs.StringVar(&la.title, "title", "", "the issue title")
	fs.StringVar(&la.body, "body", "", "the issue body")
	fs.StringVar(&la.mode, "mode", "maintenance", "maintenance or evolution")
	fs.IntVar(&la.issue, "issue", 0, "an issue number for the branch name")
	fs.BoolVar(&la.json, "json", false, "print the outcome record as JSON")
	// Unknown flags are settings (--llm-base-url …): split them off for config.Load.
	var own, rest []string
	for i := 0; i < len(args); i++ {
		name := strings.TrimLeft(strings.SplitN(args[i], "=", 2)[0], "-")
		if fs.Lookup(name) == nil {
			rest = append(rest, args[i])
			if !strings.Contains(args[i], "=") && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		own = append(own, args[i])
		if !strings.Contains(args[i], "=") && name != "json" && i+1 < len(args) {
			i++
			own = append(own, args[i])
		}
	}
	if err := fs.Parse(own); err != nil {
		return la, nil, err
	}
	switch {
	case la.repo == "":
		return la, nil, fmt.Errorf("--repo is required")
	case strings.TrimSpace(la.title) == "":
		return la, nil, fmt.Errorf("--title is required")
	case la.mode != "maintenance" && la.mode != "evolution":
		return la, nil, fmt.Errorf("--mode must be maintenance or evolution")
	}
	return la, rest, nil
}

// runLocal runs the pipeline on a local checkout without GitHub (CONTRACT §1).
func runLocal(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	la, rest, err := parseLocal(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bot run: %v\n", err)
		return exitUsage
	}
	cfg, _, ok := loadConfig(rest, getenv, stderr, func(*config.Config) string { return "worker" })
	if !ok {
		return exitUsage
	}
	repo, base, err := localRepo(la.repo)
	if err != nil {
		fmt.Fprintf(stderr, "bot run: --repo: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rec, comment, err := runLocalPipeline(ctx, cfg, la, repo, base, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bot run: %v\n", err)
		return exitFailure
	}
	if la.json {
		b, _ := json.Marshal(rec)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintln(stdout, comment)
	}
	if rec.Outcome != outcome.Completed {
		return exitFailure
	}
	return exitOK
}

func runLocalPipeline(ctx context.Context, cfg *config.Config, la localArgs, repo, base string, stderr io.Writer) (outcome.Record, string, error) {
	data, err := os.MkdirTemp("", "warden-run-")
	if err != nil {
		return outcome.Record{}, "", err
	}
	defer os.RemoveAll(data)
	log := newLogger(cfg, io.Discard)
	ws, err := workspace.New(data, workspace.Options{Logger: log})
	if err != nil {
		return outcome.Record{}, "", err
	}
	newSession, err := sessionFactory(cfg, log)
	if err != nil {
		return outcome.Record{}, "", err
	}
	p := &pipeline.Pipeline{Workspace: ws, NewSession: newSession, Prefix: cfg.LabelPrefix, Log: log}
	if p.NewTaskSession, err = localTaskSessions(cfg, log); err != nil {
		return outcome.Record{}, "", err
	}
	host := &pipeline.LocalHost{Title: la.title, Body: la.body, RepoURL: "file://" + repo, Progress: stderr}
	t := pipeline.Task{Repo: "local/" + filepath.Base(repo), Issue: la.issue, Mode: la.mode, CloneURL: "file://" + repo, DefaultBranch: base, Attempt: 1}
	p.Attempt(ctx, host, t)
	if host.Branch != "" {
		fmt.Fprintf(stderr, "warden: the change is on branch %s of %s\n", host.Branch, repo)
	}
	return host.Record, host.Comment, nil
}

// localRepo resolves a checkout's top level and its current branch.
func localRepo(path string) (string, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", err
	}
	top, err := exec.Command("git", "-C", abs, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s is not a git checkout", abs)
	}
	branch, err := exec.Command("git", "-C", abs, "symbolic-ref", "--short", "HEAD").Output()
	if err != nil {
		return "", "", fmt.Errorf("%s has no current branch", abs)
	}
	return strings.TrimSpace(string(top)), strings.TrimSpace(string(branch)), nil
}
