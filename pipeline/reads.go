package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Bounds on the planner's "read" decisions: two turns of at most eight
// files or definitions, each quoted up to maxReadBytes.
const (
	maxReadTurns    = 2
	maxReadsPerTurn = 8
	maxReadBytes    = 16 << 10
)

// planWithReads asks for a plan, answering "read" decisions (through the
// worktree's confined reader) until the planner commits to one or its read
// turns run out; asking again after the last is a contract failure.
func (a *attempt) planWithReads(ctx context.Context, feedback string) (agent.Plan, error) {
	for {
		plan, err := a.askPlan(ctx, feedback)
		if err != nil || plan.Decision != "read" {
			return plan, err
		}
		pc := a.planCtx(ctx)
		if pc.turns >= maxReadTurns {
			return plan, &outcome.Error{Class: outcome.ContractFailure, Stage: StagePlan,
				Msg: fmt.Sprintf("the planner asked to read more after its %d read turns", maxReadTurns)}
		}
		pc.turns++
		a.log.Info("planner read", "turn", pc.turns, "items", len(plan.Read))
		for i, item := range plan.Read {
			if i == maxReadsPerTurn {
				fmt.Fprintf(&pc.reads, "(only the first %d items of a read are answered)\n", maxReadsPerTurn)
				break
			}
			pc.reads.WriteString(a.readItem(item))
		}
	}
}

// readItem answers one read: "path" or "path#Definition".
func (a *attempt) readItem(item string) string {
	path, def, _ := strings.Cut(strings.TrimSpace(item), "#")
	b, err := a.wt.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("<file path=%q>cannot be read: %v</file>\n", path, errText(err))
	}
	src := strings.ToValidUTF8(string(b), "\uFFFD")
	var names []string
	if def != "" {
		names = []string{def}
	}
	defs := repoindex.Definitions(path, b)
	text, whole := repocontext.Excerpt(src, defs, names, maxReadBytes)
	if !whole {
		text = "Outline:\n" + repocontext.Outline(defs, b, 80) + "Excerpt:\n" + text
	}
	return fmt.Sprintf("<file path=%q>\n%s</file>\n", path, quote(text))
}

func errText(err error) string {
	if strings.Contains(err.Error(), "no such file") {
		return "no such file"
	}
	var big *workspace.ErrTooLarge
	if errors.As(err, &big) {
		return fmt.Sprintf("too large to read (%d bytes)", big.Size)
	}
	return "outside the repository or not a regular file"
}

// quote keeps file text from closing the fence it is quoted in.
func quote(s string) string {
	return strings.NewReplacer("</file>", "‹/file›", "<file", "‹file").Replace(s)
}
