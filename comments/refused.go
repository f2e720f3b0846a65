package comments

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/warden-bot/warden/outcome"
)

// maxRefused bounds the refused hosts an outcome comment lists.
const maxRefused = 10

// refusedHosts lists, once each, the hosts the egress policy refused a
// sandbox (CONTRACT §13), with the `network.allow` entry that would allow
// the host when a repository setting can: only a host outside the
// allow-list can be let through; a private, loopback or otherwise
// non-public address never can, and the comment says so rather than
// suggest a line that would change nothing. Host names come from the
// sandbox, so one that is not a plain host name is left out.
func refusedHosts(es []outcome.Egress) string {
	var lines []string
	seen, more := map[string]bool{}, 0
	for _, e := range es {
		if e.Verdict != "denied" || !plainHost(e.Host) {
			continue
		}
		where := e.Host + ":" + strconv.Itoa(e.Port)
		if seen[where] {
			continue
		}
		seen[where] = true
		if len(lines) == maxRefused {
			more++
			continue
		}
		lines = append(lines, refusedLine(e, where))
	}
	if len(lines) == 0 {
		return ""
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("- … and %d more (the outcome record lists them)", more))
	}
	return "**Hosts the egress policy refused:**\n" + strings.Join(lines, "\n") + "\n"
}

func refusedLine(e outcome.Egress, where string) string {
	stage := ""
	if e.Stage != "" && plainHost(e.Stage) {
		stage = " (" + e.Stage + ")"
	}
	if strings.Contains(e.Reason, "not in the allow-list") {
		return fmt.Sprintf("- `%s`%s: not in the allow-list; to allow it, add `%s` to `network: {allow: [...]}` in `.github/warden.yml`", where, stage, e.Host)
	}
	return fmt.Sprintf("- `%s`%s: refused (%s); no `network.allow` line reaches it", where, stage, strings.ReplaceAll(Neutralize(oneLine(cut(e.Reason, 120))), "@", "@\u200b"))
}

// plainHost admits the characters of a host name, an IP address or a glob.
func plainHost(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-_:[]", r)
		if !ok {
			return false
		}
	}
	return true
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
