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

// ParseRecord reads the record of an outcome comment: the last one, the
// record Warden appends after everything else. Text before it may be the
// model's (neutralised when written, but comments written before that was
// done may still hold a spoof), so an earlier match is never read.
func ParseRecord(body string) (outcome.Record, bool) {
	all := recordRE.FindAllStringSubmatch(body, -1)
	if len(all) == 0 {
		return outcome.Record{}, false
	}
	m := all[len(all)-1]
	var rec outcome.Record
	if err := json.Unmarshal([]byte(m[1]), &rec); err != nil {
		return outcome.Record{}, false
	}
	return rec, true
}

// IsStatus reports whether a body is a status comment: Warden writes the
// marker first, so a marker anywhere else is someone's text, not Warden's.
func IsStatus(body string) bool { return strings.HasPrefix(body, StatusMarker) }

// Neutralize makes text Warden did not write (the model's, a tool's, an
// issue author's) unable to open or close an HTML comment, so it can never
// carry, hide or end one of Warden's hidden markers. In Markdown prose the
// entities render as the characters they replace.
func Neutralize(s string) string { return proseMarkers.Replace(s) }

// NeutralizeFenced is Neutralize for text inside a code fence, where
// entities are shown literally: a space breaks the sequence instead.
func NeutralizeFenced(s string) string { return fencedMarkers.Replace(s) }

var (
	proseMarkers  = strings.NewReplacer("<!--", "&lt;!--", "-->", "--&gt;")
	fencedMarkers = strings.NewReplacer("<!--", "<! --", "-->", "-- >")
)
