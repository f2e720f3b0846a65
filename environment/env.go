// Package environment is where a repository's commands run: the image,
// the setup command, the inferred or declared commands, the egress policy
// and the baseline on the base commit. Package pipeline keeps the stages
// and asks an Env for each of these; it holds one Env per attempt.
package environment

import (
	"context"
	"log/slog"
	"time"

	"github.com/warden-bot/warden/environment/mirrors"
	"github.com/warden-bot/warden/environment/toolchain"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
	"github.com/warden-bot/warden/sandbox/egress"
	"github.com/warden-bot/warden/sandbox/image"
)

// Images resolves an image reference to an unpacked root file system.
type Images interface {
	Pull(ctx context.Context, ref string) (image.Root, error)
	Release(root image.Root)
}

// Hooks are how the environment reports to the attempt that holds it; each
// may be nil.
type Hooks struct {
	// Line shows the commands, the image and their sources on the status comment.
	Line func(line string)
	// Note records a repository command on the transcript.
	Note func(stage, line string, res workspace.Result, output, note string)
	// Quote is the tool output worth quoting when the attempt ends here.
	Quote func(output, title string)
	// Egress is told of every connection a sandbox asked for; it must not block.
	Egress func(stage string, c egress.Conn)
}

// Env is one attempt's environment. Its exported fields are set once, when
// the attempt starts; Resolve sets the rest on each (fresh) start.
type Env struct {
	Images    Images // nil runs every command on the worker's own system
	Workspace *workspace.Manager
	Log       *slog.Logger
	Repo      string
	Branch    string // the default branch, for messages
	Prefix    string // the command prefix, for messages
	Hooks     Hooks
	Mirrors   mirrors.Mirrors // the operator's package mirrors, for setup and tests

	cfg    modes.Config
	plan   toolchain.Plan // the image and commands, and where each came from
	wt     *workspace.Worktree
	root   image.Root // the unpacked image commands run in; zero: the worker's system
	egress egressLog
	pulls  []outcome.ImagePull
	bs     *baseState
}

// Digest is the image's digest commands ran in, or "".
func (e *Env) Digest() string { return e.root.Digest }

// Pulls are the image pulls, for the outcome record.
func (e *Env) Pulls() []outcome.ImagePull { return e.pulls }

// Command is a repository command of that kind in the attempt's worktree,
// with its cache, its image and the repository's network setting (setup
// always has the network: workspace.Run gives it).
func (e *Env) Command(line string, timeout time.Duration, kind sandbox.Kind) workspace.Command {
	network := sandbox.NoNetwork
	if e.cfg.Network.On {
		network = sandbox.Egress
	}
	return workspace.Command{Tree: e.wt.Tree(), Kind: kind, Line: line, Timeout: timeout, Network: network, Cache: e.cache(),
		Root: e.root.Dir, RootEnv: e.root.Env, ExtraEnv: e.Mirrors.Vars()}
}

// cache is the repository's dependency cache when it has a setup command;
// without one, commands use the host's Go caches read-only, as before.
func (e *Env) cache() string {
	if e.cfg.Setup == "" {
		return ""
	}
	return e.Workspace.CacheDir(e.Repo)
}

func (e *Env) line(s string) {
	if e.Hooks.Line != nil {
		e.Hooks.Line(s)
	}
}

func (e *Env) note(stage, line string, res workspace.Result, output, note string) {
	if e.Hooks.Note != nil {
		e.Hooks.Note(stage, line, res, output, note)
	}
}

func (e *Env) quote(output, title string) {
	if e.Hooks.Quote != nil {
		e.Hooks.Quote(output, title)
	}
}

// CapNote names the caps a command hit, for the failure's message.
func CapNote(res workspace.Result) string {
	if res.Cap == "" {
		return ""
	}
	return " (" + res.Cap + ")"
}
