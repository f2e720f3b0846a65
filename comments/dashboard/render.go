package dashboard

import (
	"fmt"
	"strings"
)

// RetryLine is the checkbox a writer ticks to retry issue n.
func RetryLine(n int) string { return fmt.Sprintf("- [ ] <!-- warden:retry:%d --> retry #%d", n, n) }

// Render is the dashboard's body for st: the same state gives the same
// text, byte for byte, so an unchanged dashboard is never sent again.
func Render(st State, prefix string) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	b.WriteString("## Warden dashboard\n\n")
	fmt.Fprintf(&b, "What Warden is doing in this repository, kept up to date by Warden (edits are written over). "+
		"Tick a box to retry that issue: it works for users with write access, as `/%s retry` on the issue does.\n", prefix)
	section(&b, "Running", st.Running, plain)
	section(&b, "Queued", st.Queued, plain)
	section(&b, "Deferred", st.Deferred, plain)
	section(&b, "Blocked", st.Blocked, retry)
	section(&b, "Escalated", st.Escalated, retry)
	section(&b, "Pull requests waiting", st.Waiting, pull)
	if st.Spend != nil {
		spend(&b, *st.Spend)
	}
	return b.String()
}

func plain(it Item) string { return fmt.Sprintf("- #%d — %s", it.Issue, it.Why) }
func retry(it Item) string { return RetryLine(it.Issue) + " — " + it.Why }
func pull(it Item) string  { return fmt.Sprintf("- PR #%d for #%d — %s", it.PR, it.Issue, it.Why) }

func section(b *strings.Builder, title string, items []Item, line func(Item) string) {
	fmt.Fprintf(b, "\n### %s (%d)\n\n", title, len(items))
	if len(items) == 0 {
		b.WriteString("None.\n")
		return
	}
	for _, it := range items {
		b.WriteString(line(it) + "\n")
	}
}

func spend(b *strings.Builder, sp Spend) {
	fmt.Fprintf(b, "\n### Model spend today (%s UTC)\n\n", sp.Day)
	fmt.Fprintf(b, "- this repository: %s\n", against(sp.Repo, sp.RepoCap))
	fmt.Fprintf(b, "- this installation: %s\n", against(sp.Installation, sp.InstallationCap))
}

func against(usd, limit float64) string {
	if limit <= 0 {
		return fmt.Sprintf("$%.2f (no daily cap)", usd)
	}
	return fmt.Sprintf("$%.2f of $%.2f", usd, limit)
}
