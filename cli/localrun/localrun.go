// Package localrun is `bot run`: the whole pipeline on a local checkout,
// without GitHub (CONTRACT §1).
package localrun

import (
	"context"
	"flag"
	"fmt"
	"github.com/warden-bot/warden/environment/mirrors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/image"
)

// Args are the flags of `bot run`.
type Args struct {
	Repo, Title, Body, Mode string
	Issue                   int
	JSON                    bool
	Base                    string // the checkout's current branch; Repo is its top level
	// TaskSessions, when set, is the pipeline's NewTaskSession (an agent
	// CLI charged to an in-process ledger).
	TaskSessions func(t pipeline.Task, tree sandbox.Tree, budget float64) (pipeline.Session, error)
}

// Parse reads the flags of `bot run`; the flags it does not know are
// settings and are returned for config.Load.
func Parse(args []string, stderr io.Writer) (Args, []string, error) {
	var la Args
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&la.Repo, "repo", "", "path of a local git checkout")
	fs.StringVar(&la.Title, "title", "", "the issue title")
	fs.StringVar(&la.Body, "body", "", "the issue body")
	fs.StringVar(&la.Mode, "mode", "maintenance", "maintenance or evolution")
	fs.IntVar(&la.Issue, "issue", 0, "an issue number for the branch name")
	fs.BoolVar(&la.JSON, "json", false, "print the outcome record as JSON")
	// Unknown flags are settings (--llm-base-url …): split them off for config.Load.
	var own, rest []string
	for i := 0; i < len(args); i++ {
		name := strings.TrimLeft(strings.SplitN(args[i], "=", 2)[0], "-")
		if name == "help" || name == "h" { // run's own usage, not the settings'
			own = append(own, args[i])
			continue
		}
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
	case la.Repo == "":
		return la, nil, fmt.Errorf("--repo is required")
	case strings.TrimSpace(la.Title) == "":
		return la, nil, fmt.Errorf("--title is required")
	case la.Mode != "maintenance" && la.Mode != "evolution":
		return la, nil, fmt.Errorf("--mode must be maintenance or evolution")
	}
	top, base, err := Repo(la.Repo)
	if err != nil {
		return la, nil, fmt.Errorf("--repo: %w", err)
	}
	la.Repo, la.Base = top, base
	return la, rest, nil
}

// Sessions builds the model side of an attempt in dir.
type Sessions func(tree sandbox.Tree, repo string, budget float64) (pipeline.Session, error)

// Run runs one attempt of the pipeline on the checkout la.Repo (as Parse
// resolved it) with a
// throwaway data directory; the change stays on a local branch, and where
// it is is said on progress.
func Run(ctx context.Context, la Args, newSession Sessions, prefix string, log *slog.Logger, progress io.Writer) (outcome.Record, string, error) {
	repo, base := la.Repo, la.Base
	// bot run takes the operator's registry list from the environment, as
	// serve takes it from its configuration.
	registries, err := image.SplitRegistries(os.Getenv(image.RegistriesEnv))
	if err != nil {
		return outcome.Record{}, "", err
	}
	data, err := os.MkdirTemp("", "warden-run-")
	if err != nil {
		return outcome.Record{}, "", err
	}
	defer os.RemoveAll(data)
	ws, err := workspace.New(data, workspace.Options{Logger: log})
	if err != nil {
		return outcome.Record{}, "", err
	}
	// A repository's own image (warden.yml, devcontainer.json) is pulled into
	// the throwaway directory too: bot run runs commands where serve would.
	p := &pipeline.Pipeline{Workspace: ws, NewSession: newSession, NewTaskSession: la.TaskSessions, Prefix: prefix, Log: log,
		Images:  &image.Store{Dir: filepath.Join(data, "images"), Registries: registries, Log: log},
		Mirrors: mirrors.Mirrors{PipIndex: os.Getenv(mirrors.PipSetting), NPMRegistry: os.Getenv(mirrors.NPMSetting), GoProxy: os.Getenv(mirrors.GoSetting)}}
	host := &pipeline.LocalHost{Title: la.Title, Body: la.Body, RepoURL: "file://" + repo, Progress: progress}
	t := pipeline.Task{Repo: "local/" + filepath.Base(repo), Issue: la.Issue, Mode: la.Mode, CloneURL: "file://" + repo, DefaultBranch: base, Attempt: 1}
	p.Attempt(ctx, host, t)
	if host.Branch != "" {
		fmt.Fprintf(progress, "warden: the change is on branch %s of %s\n", host.Branch, repo)
	}
	return host.Record, host.Comment, nil
}

// Repo resolves a checkout's top level and its current branch.
func Repo(path string) (string, string, error) {
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
