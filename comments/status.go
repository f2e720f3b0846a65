package comments

import (
	"fmt"
	"strings"
)

// StageLine is one row of the checklist.
type StageLine struct {
	Name  string
	State string // pending, running, done, failed, skipped, canceled
	Note  string
}

// Status is the sticky status comment's content.
type Status struct {
	Mode    string
	Attempt int
	State   string // queued, running, pr-open, completed, escalated, canceled, …
	Stages  []StageLine
	PR      int
	Note    string
	Spend   string // "$0.12 of $1.00": the task's model spend against budget_usd
	// Environment is the test and setup commands and image, and where each
	// came from (set in .github/warden.yml or inferred from a file).
	Environment string
}

var icons = map[string]string{"pending": "⬜", "running": "⏳", "done": "✅", "failed": "❌", "skipped": "⏭️", "canceled": "🚫"}

var headlines = map[string]string{
	"queued": "Queued", "running": "Working on it", "pr-open": "Pull request open", "completed": "Completed",
	"deferred": "Deferred", "decomposed": "Split into sub-issues", "blocked": "Blocked", "retrying": "Will retry",
	"escalated": "Needs a maintainer", "canceled": "Canceled",
}

// RenderStatus renders the checklist: a headline, then one line per stage.
func RenderStatus(s Status) string {
	var b strings.Builder
	b.WriteString(StatusMarker + "\n")
	head := headlines[s.State]
	if head == "" {
		head = s.State
	}
	fmt.Fprintf(&b, "### Warden: %s\n\n", head)
	meta := []string{}
	if s.Mode != "" {
		meta = append(meta, "mode **"+s.Mode+"**")
	}
	if s.Attempt > 0 {
		meta = append(meta, fmt.Sprintf("Attempt %d", s.Attempt))
	}
	if s.PR > 0 {
		meta = append(meta, fmt.Sprintf("PR #%d", s.PR))
	}
	if s.Spend != "" {
		meta = append(meta, "model spend "+s.Spend)
	}
	if len(meta) > 0 {
		b.WriteString(strings.Join(meta, " · ") + "\n\n")
	}
	if s.Environment != "" {
		b.WriteString("Commands: " + s.Environment + "\n\n")
	}
	for _, st := range s.Stages {
		line := fmt.Sprintf("- %s %s — %s", icons[st.State], st.Name, st.State)
		if st.Note != "" {
			line += " (" + Neutralize(st.Note) + ")"
		}
		b.WriteString(line + "\n")
	}
	if s.Note != "" {
		b.WriteString("\n" + Neutralize(s.Note) + "\n")
	}
	return b.String()
}
