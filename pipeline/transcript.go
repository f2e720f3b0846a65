package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/guards"
	"github.com/warden-bot/warden/observe/transcript"
	"github.com/warden-bot/warden/outcome"
)

// The attempt's transcript (CONTRACT §13 "Seeing a run"): each method adds
// what one step did, as the log already says it; nothing here decides.

// maxOutputTail is how much of a command's output the transcript keeps.
const maxOutputTail = 3000

// noteTurn records one model call in brief: which, how long, what it cost.
func (a *attempt) noteTurn(what string, start time.Time, before agent.Usage, err error) {
	after := a.usage()
	line := fmt.Sprintf("model: %s (%s, %d tokens in, %d out, $%.4f)", what, time.Since(start).Round(100*time.Millisecond),
		after.InputTokens-before.InputTokens, after.OutputTokens-before.OutputTokens, after.CostUSD-before.CostUSD)
	if err != nil {
		line += " — failed: " + err.Error()
	}
	a.tx.Add(transcript.Model, line, "")
}

// notePlan records the plan the attempt acts on.
func (a *attempt) notePlan(p agent.Plan) {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary: %s\n", p.Summary)
	if p.Approach != "" {
		fmt.Fprintf(&b, "Approach: %s\n", p.Approach)
	}
	if len(p.Files) > 0 {
		fmt.Fprintf(&b, "Files: %s\n", strings.Join(p.Files, ", "))
	}
	for _, s := range p.Subtasks {
		fmt.Fprintf(&b, "Subtask: %s\n", s.Title)
	}
	a.tx.Add(transcript.Plan, "plan: "+p.Decision, b.String())
}

// noteDiff records the worktree's change after an edit round.
func (a *attempt) noteDiff(ctx context.Context, stage string) {
	diff, err := a.wt.Diff(ctx)
	if err != nil {
		a.tx.Addf(transcript.Edit, "%s: the diff could not be read (%v)", stage, err)
		return
	}
	a.tx.Add(transcript.Edit, fmt.Sprintf("%s: %d file(s) changed: %s", stage, len(a.files), strings.Join(a.files, ", ")), diff)
}

// noteGuards records a guard verdict on a plan or a change.
func (a *attempt) noteGuards(what string, err error) {
	vs := guards.AsViolations(err)
	switch {
	case err == nil:
		a.tx.Addf(transcript.Guard, "guards: %s within the %s mode's limits", what, a.t.Mode)
	case len(vs) == 0:
		a.tx.Addf(transcript.Guard, "guards: %s refused: %v", what, err)
	default:
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "- %s\n", v.ForModel())
		}
		a.tx.Add(transcript.Guard, fmt.Sprintf("guards: %s refused (%d violation(s))", what, len(vs)), b.String())
	}
}

// noteCommand records a repository command with its exit status and the
// end of its output.
func (a *attempt) noteCommand(stage, line string, res workspace.Result, output, note string) {
	status := fmt.Sprintf("exited %d", res.ExitCode)
	switch {
	case res.Err != nil:
		status = "could not start: " + res.Err.Error()
	case res.TimedOut:
		status = "timed out"
	case res.Canceled:
		status = "canceled"
	}
	if res.Cap != "" {
		status += " (" + res.Cap + ")"
	}
	status += note
	out := output
	if len(out) > maxOutputTail {
		out = "[…]\n" + strings.ToValidUTF8(out[len(out)-maxOutputTail:], "")
	}
	a.tx.AddTail(transcript.Command, fmt.Sprintf("%s `%s` %s in %s", strings.ToLower(stage), line, status, res.Duration.Round(time.Millisecond)), out)
}

// closeTranscript adds what is known only at the end: the egress
// connections and the spend.
func (a *attempt) closeTranscript(rec outcome.Record) {
	for _, e := range rec.Egress {
		line := fmt.Sprintf("egress (%s): %s:%d %s", e.Stage, e.Host, e.Port, e.Verdict)
		if e.Reason != "" {
			line += " — " + e.Reason
		}
		a.tx.Add(transcript.Egress, line, "")
	}
	spend := fmt.Sprintf("spend: $%.4f, %d tokens this attempt", rec.CostUSD, rec.Tokens)
	if rec.BudgetUSD > 0 {
		spend += fmt.Sprintf("; $%.4f of $%.2f for the task", rec.SpentUSD, rec.BudgetUSD)
	}
	a.tx.Add(transcript.Spend, spend, "")
	a.tx.Add(transcript.Note, fmt.Sprintf("outcome: %s %s", rec.Outcome, rec.FailureClass), rec.Summary)
}
