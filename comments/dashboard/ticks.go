package dashboard

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// IsDashboard reports whether an issue's title and body are a dashboard's.
// Whose issue it is, the caller checks (Warden's own, never a copy).
func IsDashboard(title, body string) bool {
	return title == Title && strings.HasPrefix(body, Marker)
}

var box = regexp.MustCompile(`(?m)^[ \t]*[-*] \[([ xX])\] <!-- warden:retry:([1-9][0-9]{0,9}) -->`)

// boxes maps each retry box of a body to whether it is ticked.
func boxes(body string) map[int]bool {
	out := map[int]bool{}
	for _, m := range box.FindAllStringSubmatch(body, -1) {
		n, err := strconv.Atoi(m[2])
		if err == nil {
			out[n] = out[n] || m[1] != " "
		}
	}
	return out
}

// Ticked lists the issues whose retry box is ticked in after and was not in
// before (GitHub's changes.body.from): a box ticked earlier and not yet
// written over is not asked again.
func Ticked(before, after string) []int {
	was := boxes(before)
	var out []int
	for n, ticked := range boxes(after) {
		if ticked && !was[n] {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}
