package transcript

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func fixed(l *Log) *Log {
	l.now = func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) }
	return l
}

func TestRenderInOrderWithFences(t *testing.T) {
	l := fixed(New())
	l.Add(Plan, "implement: fix Add", "files: calc/calc.go")
	l.Add(Edit, "implement changed calc/calc.go", "-\treturn a - b\n+\treturn a + b\n```")
	l.AddTail(Command, "test `go test ./...` exited 0", "ok  example.com/m/calc")
	l.Addf(Spend, "$%.4f of $%.2f", 0.0123, 2.0)
	got := l.Render(MaxText, nil)
	order := []string{"`plan` implement: fix Add", "```diff\n-\treturn a - b", "`command` test", "`spend` $0.0123 of $2.00"}
	at := 0
	for _, w := range order {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, got)
		}
		at += i
	}
	if strings.Count(got, "```") != 6 {
		t.Errorf("a body's fence closed the block early:\n%s", got)
	}
}

func TestRenderKeepsBothEndsWithinLimit(t *testing.T) {
	l := fixed(New())
	l.Add(Plan, "THE PLAN", "")
	for i := 0; i < 200; i++ {
		l.AddTail(Command, "run", strings.Repeat("x", 1000))
	}
	l.Addf(Spend, "THE SPEND")
	got := l.Render(20000, nil)
	if len(got) > 20000 {
		t.Fatalf("rendered %d characters, limit 20000", len(got))
	}
	for _, w := range []string{"THE PLAN", "THE SPEND", "entries cut here"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q missing from a cut transcript", w)
		}
	}
}

func TestLongBodiesAndRunsAreBounded(t *testing.T) {
	l := fixed(New())
	l.AddTail(Command, "out", strings.Repeat("a", maxBodyRune)+"THE END")
	l.Add(Edit, "diff", "THE START"+strings.Repeat("b", maxBodyRune))
	es, _ := l.Entries()
	if !strings.HasSuffix(es[0].Body, "THE END") || !strings.HasPrefix(es[1].Body, "THE START") {
		t.Error("a command keeps its output's end, an edit its beginning")
	}
	for i := 0; i < maxEntries+50; i++ {
		l.Addf(Model, "turn %d", i)
	}
	es, dropped := l.Entries()
	if len(es) != maxEntries || dropped != 52 || es[0].Kind != Command || es[len(es)-1].Title != "turn 449" {
		t.Errorf("kept %d, dropped %d, first %q, last %q", len(es), dropped, es[0].Kind, es[len(es)-1].Title)
	}
}

func TestCleanAppliesToEveryPiece(t *testing.T) {
	l := fixed(New())
	l.Add(Command, "token ghs_SECRET in the title", "and ghs_SECRET in the body")
	got := l.Render(MaxText, func(s string) string { return strings.ReplaceAll(s, "ghs_SECRET", "[redacted]") })
	if strings.Contains(got, "ghs_SECRET") {
		t.Fatalf("a secret survived:\n%s", got)
	}
}

func TestNilAndConcurrent(t *testing.T) {
	var nl *Log
	nl.Add(Plan, "x", "y") // a nil log ignores
	if es, _ := nl.Entries(); es != nil {
		t.Fatal("nil log has entries")
	}
	l := New()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.Addf(Egress, "conn") }()
	}
	wg.Wait()
	if es, _ := l.Entries(); len(es) != 8 || !l.Has(Egress) || l.Has(Plan) {
		t.Fatalf("entries %d", len(es))
	}
}
