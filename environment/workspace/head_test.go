package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/test/gitfixture"
)

// CheckedOut names HEAD's commit without asking git while Warden has not
// moved HEAD, and nothing once a commit has: the index cache is keyed by it.
func TestCheckedOutIsHEADUntilACommit(t *testing.T) {
	_, url := gitfixture.NewRepo(t, map[string]string{"a.txt": "one\n"})
	m := newManager(t)
	ctx := context.Background()
	w := prepare(t, m, url, "h1")
	head, err := w.Query(ctx, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.CheckedOut(); got != strings.TrimSpace(head) {
		t.Fatalf("CheckedOut %q, HEAD %q", got, head)
	}
	os.WriteFile(filepath.Join(w.Dir, "a.txt"), []byte("two\n"), 0o644)
	if _, err := w.Changes(ctx); err != nil {
		t.Fatal(err)
	}
	sha, err := w.Commit(ctx, "m", "n", "n@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.CheckedOut(); got != "" {
		t.Fatalf("CheckedOut %q after a commit moved HEAD", got)
	}
	// A retried release reads HEAD again (the tree Prepare read is the
	// base's) and finds its commit.
	if again, err := w.Commit(ctx, "m", "n", "n@example.com"); err != nil || again != sha {
		t.Fatalf("retried Commit: %q, %v; want %q", again, err, sha)
	}
}
