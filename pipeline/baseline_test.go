package pipeline

import (
	"os"
	"testing"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/testreport"
)

func TestBaselineCacheKeepsAResultForItsLifetime(t *testing.T) {
	c := baselineCache{dir: t.TempDir()}
	now := time.Now()
	k := baselineKey("acme/calc", "abc", "go test ./...")
	if k == baselineKey("acme/calc", "abc", "go test ./calc/") || k == baselineKey("acme/calc", "abd", "go test ./...") {
		t.Fatal("the key ignores the command or the commit")
	}
	if err := c.put(k, baseline{Base: "abc", Failed: []string{"p TestX"}, At: now}); err != nil {
		t.Fatal(err)
	}
	if b, ok := c.get(k, now.Add(time.Hour)); !ok || b.Failed[0] != "p TestX" {
		t.Fatalf("get = %+v, %v", b, ok)
	}
	if _, ok := c.get(k, now.Add(baselineTTL+time.Minute)); ok {
		t.Fatal("an expired result was trusted")
	}
	if _, err := os.Stat(c.path(k)); !os.IsNotExist(err) {
		t.Fatal("the expired result stayed on disk")
	}
}

func TestIssueAboutTellsTheIssuesTestsFromOthers(t *testing.T) {
	a := &attempt{t: Task{Title: "Add returns the difference", Body: "see TestParseDate"},
		plan: agent.Plan{Files: []string{"calc/calc.go"}},
		bs:   &baseState{plan: testreport.Instrument("go test ./...", "")}}
	for id, want := range map[string]bool{
		"example.com/m/calc TestMul":          true, // in a package the plan changes
		"example.com/m/dates TestParseDate":   true, // named in the issue
		"example.com/m/clock TestCertificate": false,
		"suite > certificate":                 false,
		"calc add":                            false, // a Go id: "add" is the test
	} {
		if got := a.issueAbout(id); got != want {
			t.Errorf("issueAbout(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestIssueAboutReadsJUnitNamesWhole(t *testing.T) {
	a := &attempt{t: Task{Title: "add returns the difference"}, plan: agent.Plan{Files: []string{"calc.js"}},
		bs: &baseState{plan: testreport.Instrument("node --test", t.TempDir())}}
	if !a.issueAbout("calc add") || a.issueAbout("certificate") || !a.issueAbout("suite > calc sums") {
		t.Fatal("a node test named after the changed unit is not the issue's, or an unrelated one is")
	}
}
