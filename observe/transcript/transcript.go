// Package transcript is a run's account of itself (CONTRACT §13 "Seeing a
// run"): the plan, each model turn in brief, each edit as a diff, each
// command with its exit status and the end of its output, every guard
// verdict, every egress connection with its verdict, the spend and any
// writer's guidance — in the order they happened, bounded, rendered as
// Markdown for a check run's output or the operator page.
//
// Nothing here decides anything: entries are what the attempt already
// logged, and the text is redacted by the caller before it leaves the
// worker, as every comment is.
package transcript

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Kinds of entry.
const (
	Plan     = "plan"
	Model    = "model"
	Edit     = "edit"
	Command  = "command"
	Guard    = "guard"
	Egress   = "egress"
	Spend    = "spend"
	Guidance = "guidance"
	Note     = "note"
)

// Bounds: a long run keeps its first and last entries, each entry its
// beginning (a diff) or its end (a command's output).
const (
	maxEntries  = 400
	maxBodyRune = 6000
)

// Entry is one thing the run did.
type Entry struct {
	At    time.Time
	Kind  string
	Title string // one line
	Body  string // shown fenced; may be empty
	Tail  bool   // keep the body's end when it is cut (command output)
}

// Log collects a run's entries; safe for concurrent use (a baseline and
// the stages may report at once). A nil *Log ignores everything.
type Log struct {
	mu      sync.Mutex
	entries []Entry
	dropped int
	now     func() time.Time
}

// New starts an empty transcript.
func New() *Log { return &Log{now: time.Now} }

// Add records one entry; past maxEntries the middle ones are dropped, so
// the first entries (the plan) and the newest stay.
func (l *Log) Add(kind, title, body string) { l.add(Entry{Kind: kind, Title: title, Body: body}) }

// AddTail is Add for output whose end matters most (a command's).
func (l *Log) AddTail(kind, title, body string) {
	l.add(Entry{Kind: kind, Title: title, Body: body, Tail: true})
}

// Addf records an entry without a body.
func (l *Log) Addf(kind, format string, args ...any) { l.Add(kind, fmt.Sprintf(format, args...), "") }

func (l *Log) add(e Entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.At = l.now()
	e.Title = oneLine(e.Title)
	e.Body = clip(e.Body, maxBodyRune, e.Tail)
	if len(l.entries) >= maxEntries {
		keep := maxEntries / 4 // the first quarter, then the newest
		l.entries = append(l.entries[:keep], l.entries[keep+1:]...)
		l.dropped++
	}
	l.entries = append(l.entries, e)
}

// Entries returns a copy of what was recorded, and how many entries a
// long run dropped from its middle.
func (l *Log) Entries() ([]Entry, int) {
	if l == nil {
		return nil, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...), l.dropped
}

// Has reports whether any entry of kind was recorded.
func (l *Log) Has(kind string) bool {
	es, _ := l.Entries()
	for _, e := range es {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n runes, keeping its beginning or its end, and
// says so where it cut.
func clip(s string, n int, tail bool) string {
	r := []rune(strings.ToValidUTF8(s, "\uFFFD"))
	if len(r) <= n {
		return s
	}
	if tail {
		return fmt.Sprintf("[… %d characters cut …]\n", len(r)-n) + string(r[len(r)-n:])
	}
	return string(r[:n]) + fmt.Sprintf("\n[… %d characters cut …]", len(r)-n)
}
