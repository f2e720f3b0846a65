// Package comments renders what maintainers see of Warden — the sticky
// status checklist, outcome comments, refusals — keeps it inside GitHub's
// limits, scrubs secrets from it, and finds Warden's own comments again (by
// author and marker, never marker alone).
package comments

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/outcome"
)

// Markers.
const (
	StatusMarker  = "<!-- warden:status -->"
	outcomePrefix = "<!-- warden:outcome "
)

// Limit is GitHub's maximum comment length, in characters.
const Limit = 65536

var recordRE = regexp.MustCompile(`<!-- warden:outcome (\{.*?\}) -->`)

// RecordMarker is the hidden one-line record of an outcome.
func RecordMarker(rec outcome.Record) string {
	b, _ := json.Marshal(rec.Normalize()) // escapes <, > and & as \u003c…: no "-->" can appear
	return outcomePrefix + string(b) + " -->"
}

// ParseRecord reads the record of an outcome comment.
func ParseRecord(body string) (outcome.Record, bool) {
	m := recordRE.FindStringSubmatch(body)
	if m == nil {
		return outcome.Record{}, false
	}
	var rec outcome.Record
	if err := json.Unmarshal([]byte(m[1]), &rec); err != nil {
		return outcome.Record{}, false
	}
	return rec, true
}

// IsStatus reports whether a body is a status comment.
func IsStatus(body string) bool { return strings.Contains(body, StatusMarker) }
