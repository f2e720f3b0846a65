package environment

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/environment/toolchain"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// Blocked ends the attempt as blocked on the repository's environment; the
// record says what to set. A maintainer's change to the configuration and
// a retry resume it.
type Blocked struct{ Record outcome.Record }

func (b *Blocked) Error() string { return fmt.Sprintf("%s: %s", b.Record.Outcome, b.Record.Summary) }

// Resolve settles the attempt's image and its setup and test commands:
// declared in .github/warden.yml, else inferred from the repository's
// files (CONTRACT §12), all as the default branch has them (CONTRACT §13)
// — p is what package trusted resolved there, never the worktree's. What
// was inferred, and from which file, goes on the status comment. With no
// test command to be had the attempt ends blocked before any model call: a
// test failure handed to the model would ask it to fix what no edit can.
// It returns cfg with the commands set.
func (e *Env) Resolve(wt *workspace.Worktree, cfg modes.Config, p toolchain.Plan) (modes.Config, error) {
	cfg.Setup, cfg.Test = p.Setup, p.Test
	e.wt, e.cfg, e.plan = wt, cfg, p
	e.line(environmentLine(p))
	e.Log.Info("commands resolved", "test", p.Test, "test_from", p.TestFrom, "setup", p.Setup, "image", p.Image, "image_from", p.ImageFrom)
	if p.Test == "" {
		return cfg, blocked("Warden found no test command for this repository.", toolchain.Hint)
	}
	return cfg, nil
}

// CheckTools runs, in the sandbox the commands will use, a probe for each
// program the inferred commands need; a missing one blocks the attempt.
func (e *Env) CheckTools(ctx context.Context) error {
	if !e.plan.Inferred || len(e.plan.Tools) == 0 {
		return nil
	}
	line := "for t in " + strings.Join(e.plan.Tools, " ") + `; do command -v "$t" >/dev/null 2>&1 || echo "$t"; done`
	res := workspace.Run(ctx, e.Command(line, e.cfg.Timeouts.Test, sandbox.Test))
	if err := ctx.Err(); err != nil {
		return err
	}
	if res.Err != nil {
		return &outcome.Error{Class: outcome.Deterministic, Stage: StageSetup, Msg: "the sandbox could not start: " + res.Err.Error()}
	}
	missing := strings.Fields(res.Output)
	if len(missing) == 0 && res.ExitCode == 0 {
		return nil
	}
	if strings.Contains(res.Output, "execvp sh") { // bubblewrap found no shell to start
		missing = []string{"sh"}
	}
	where := "the worker's own system (no image is configured)"
	if e.plan.Image != "" {
		where = "the image " + e.plan.Image
	}
	return blocked(
		fmt.Sprintf("The test command `%s`, inferred from `%s`, needs `%s`, which is not on the PATH of %s.", e.plan.Test, e.plan.TestFrom, strings.Join(missing, "`, `"), where),
		"set `image:` in .github/warden.yml (or `image` in .devcontainer/devcontainer.json) to an image that has it, ask the operator for a WARDEN_DEFAULT_IMAGE that has it, or set `test:` to a command this environment can run")
}

// blocked ends the attempt as blocked on the repository's environment,
// with what to set.
func blocked(why, what string) error {
	return &Blocked{Record: outcome.Record{
		Outcome:        outcome.Blocked,
		FailureClass:   outcome.Deterministic,
		Summary:        why + " To run it, " + what + ".",
		Obstacle:       outcome.Obstacle{Kind: "environment", Detail: why},
		Recommendation: what,
	}}
}

// environmentLine is the status comment's line on the commands.
func environmentLine(p toolchain.Plan) string {
	var parts []string
	if p.Test != "" {
		parts = append(parts, "test `"+p.Test+"` "+source(p.TestFrom))
	}
	if p.Setup != "" {
		parts = append(parts, "setup `"+p.Setup+"` "+source(p.SetupFrom))
	}
	if p.Image != "" {
		parts = append(parts, "image `"+p.Image+"` (from `"+p.ImageFrom+"`)")
	}
	return strings.Join(parts, " · ")
}

func source(from string) string {
	if from == toolchain.ConfigFile {
		return "(set in `" + from + "`)"
	}
	return "(inferred from `" + from + "`)"
}
