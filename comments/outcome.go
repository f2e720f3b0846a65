package comments

import (
	"fmt"
	"strings"

	"github.com/warden-bot/warden/outcome"
)

// Details is what an outcome comment shows besides its record.
type Details struct {
	ToolOutput      string
	ToolOutputTitle string
	Note            string
	Transcript      string // where the run's transcript is (CONTRACT §13)
}

// headline is the first line: the outcome in words.
func headline(rec outcome.Record) string {
	switch {
	case rec.Outcome == outcome.Completed && rec.PR > 0:
		return fmt.Sprintf("**Warden completed this issue** — PR #%d is open.", rec.PR)
	case rec.Outcome == outcome.Completed:
		return "**Warden completed this issue.**"
	case rec.FailureClass == outcome.Canceled:
		return "**Warden stopped: the task was canceled.**"
	case rec.Outcome == outcome.Deferred:
		return "**Warden deferred this issue** and will come back to it."
	case rec.Outcome == outcome.Decomposed:
		return "**Warden split this issue into sub-issues.**"
	case rec.Outcome == outcome.Blocked:
		return "**Warden is blocked on this issue.**"
	case rec.Outcome == outcome.Retryable:
		return fmt.Sprintf("**Warden hit a temporary failure (%s) and will retry.**", rec.FailureClass)
	}
	return fmt.Sprintf("**Warden escalated this issue: %s.**", classWords[rec.FailureClass])
}

var classWords = map[outcome.Class]string{
	outcome.Transient: "a temporary failure kept recurring", outcome.Deterministic: "it cannot proceed without a change",
	outcome.BudgetExhausted: "the budget is spent", outcome.ContractFailure: "the model's replies could not be used",
	outcome.TestFailure: "the tests still fail", outcome.GuardViolation: "the change broke a guard",
	outcome.Hollow: "the result had no substance", outcome.None: "it needs a maintainer",
}

// RenderOutcome renders an outcome comment: headline, summary, what was
// tried, what blocked it, what to do next, tool output, hidden record.
func RenderOutcome(rec outcome.Record, d Details) string {
	var b strings.Builder
	b.WriteString(headline(rec) + "\n\n")
	if rec.Summary != "" {
		b.WriteString(Neutralize(rec.Summary) + "\n\n")
	}
	row := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			fmt.Fprintf(&b, "- **%s:** %s\n", k, Neutralize(oneLine(v)))
		}
	}
	row("Attempt", fmt.Sprintf("%d (%s mode)", rec.Attempt, rec.Mode))
	if rec.Repeat > 1 {
		row("Seen", fmt.Sprintf("%d times", rec.Repeat))
	}
	row("Tried", rec.Approach)
	if rec.Obstacle.Detail != "" || rec.Obstacle.Task != "" {
		row("Blocked by", strings.TrimSpace(rec.Obstacle.Kind+": "+rec.Obstacle.Detail+" "+rec.Obstacle.Task))
	}
	if rec.Missing != "" {
		row("Still missing", rec.Missing)
	}
	row("Next", next(rec))
	if len(rec.Files) > 0 {
		row("Files", "`"+strings.Join(rec.Files, "`, `")+"`")
	}
	if rec.CostUSD > 0 || rec.Tokens > 0 {
		row("Cost", fmt.Sprintf("$%.4f, %d tokens", rec.CostUSD, rec.Tokens))
	}
	if rec.BudgetUSD > 0 {
		row("Task spend", fmt.Sprintf("$%.4f of $%.2f (all attempts)", rec.SpentUSD, rec.BudgetUSD))
	}
	row("Transcript", d.Transcript)
	if r := refusedHosts(rec.Egress); r != "" {
		b.WriteString("\n" + r)
	}
	if d.Note != "" {
		b.WriteString("\n" + Neutralize(d.Note) + "\n")
	}
	if d.ToolOutput != "" {
		title := d.ToolOutputTitle
		if title == "" {
			title = "Output"
		}
		fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n```text\n%s\n```\n\n</details>\n", Neutralize(oneLine(title)), NeutralizeFenced(fenceSafe(d.ToolOutput)))
	}
	b.WriteString("\n" + RecordMarker(rec) + "\n")
	return b.String()
}

func next(rec outcome.Record) string {
	if rec.Recommendation != "" {
		return rec.Recommendation
	}
	switch {
	case rec.Outcome == outcome.Completed:
		if rec.Mode == "evolution" {
			return "review and approve the PR; Warden never merges evolution PRs"
		}
		return "the PR merges itself once every check is green"
	case rec.Outcome == outcome.Retryable, rec.Outcome == outcome.Deferred:
		return "nothing: Warden tries again by itself"
	case rec.Outcome == outcome.Blocked && rec.Obstacle.Task != "":
		return "Warden resumes when " + rec.Obstacle.Task + " is closed"
	}
	return "clarify the issue or adjust `.github/warden.yml`, then comment `/warden retry`"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// fenceSafe keeps tool output from closing the code fence around it.
func fenceSafe(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }
