package followup

import (
	"encoding/json"
	"regexp"
)

var markerRE = regexp.MustCompile(`<!-- ([a-z0-9-]+):pr (\{[^>]*\}) -->`)

// Marker reads the issue and mode from a Warden PR body's hidden marker:
// the last one, which Warden writes after the model's (neutralised) text, so
// a marker in that text — of any prefix — neither replaces nor hides it.
// Anyone can paste one: callers also check that the App authored the PR.
func Marker(prefix, body string) (issue int, mode string, ok bool) {
	all := markerRE.FindAllStringSubmatch(body, -1)
	if len(all) == 0 {
		return 0, "", false
	}
	m := all[len(all)-1]
	if m[1] != prefix {
		return 0, "", false
	}
	var mk struct {
		Issue int    `json:"issue"`
		Mode  string `json:"mode"`
	}
	if json.Unmarshal([]byte(m[2]), &mk) != nil || mk.Issue <= 0 {
		return 0, "", false
	}
	return mk.Issue, mk.Mode, true
}
