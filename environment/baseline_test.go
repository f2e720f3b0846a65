package environment

import (
	"os"
	"testing"
	"time"
)

func TestBaselineCacheKeepsAResultForItsLifetime(t *testing.T) {
	c := baselineCache{dir: t.TempDir()}
	now := time.Now()
	k := baselineKey("acme/calc", "abc", "go test ./...")
	if k == baselineKey("acme/calc", "abc", "go test ./calc/") || k == baselineKey("acme/calc", "abd", "go test ./...") {
		t.Fatal("the key ignores the command or the commit")
	}
	if err := c.put(k, Baseline{Base: "abc", Failed: []string{"p TestX"}, At: now}); err != nil {
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
