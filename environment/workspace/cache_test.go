package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A command reads an initialized shared build cache only through the
// helper, mounted read-only, and builds into its own; without the helper or
// an initialized cache it gets a private one.
func TestSettleGoCache(t *testing.T) {
	shared, home := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(shared, "00"), 0o700)
	defer func(old string) { GoCacheProg = old }(GoCacheProg)
	GoCacheProg = "/opt/warden/bot"
	env, ro := settleGoCache([]string{"PATH=/usr/bin", "GOCACHE=" + shared}, home)
	private := "GOCACHE=" + filepath.Join(home, ".cache", "go-build")
	if !slices.Contains(env, private) || !slices.Equal(ro, []string{shared, GoCacheProg}) ||
		!slices.ContainsFunc(env, func(e string) bool {
			return strings.HasPrefix(e, "GOCACHEPROG=/opt/warden/bot gocacheprog "+shared+" ")
		}) {
		t.Fatalf("env %q, read-only %q", env, ro)
	}
	GoCacheProg = ""
	env, ro = settleGoCache([]string{"GOCACHE=" + shared}, home)
	if !slices.Equal(env, []string{private}) || ro != nil {
		t.Fatalf("without the helper: env %q, read-only %q", env, ro)
	}
}
