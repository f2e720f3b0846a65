package e2e

import (
	"strings"
	"testing"
	"time"
)

// A host the egress policy refused is listed in the outcome comment with
// the `network.allow` entry that would allow it (CONTRACT §13): here the
// setup command asks for a host outside the repository's allow-list.
func TestOutcomeListsRefusedHosts(t *testing.T) {
	files := calcRepo()
	files[".github/warden.yml"] = "setup: curl -s -o /dev/null --max-time 20 https://blocked.example.org/ || true\n" +
		"test: go test ./...\nnetwork:\n  allow: [allowed.example.org]\n"
	w := newWorld(t, files)
	w.Model.Script(happyScript)
	w.Label(21, "Add returns the difference", "fix it", "warden:maintenance", "alice")
	rec := w.OutcomeOf(21, 150*time.Second)
	refused := false
	for _, e := range rec.Egress {
		refused = refused || e.Host == "blocked.example.org" && e.Verdict == "denied"
	}
	if !refused {
		t.Fatalf("the record does not show the refused connection: %+v\n%s", rec.Egress, tail(w.Bot.Logs(), 3000))
	}
	body := w.CommentWith(21, "<!-- warden:outcome")
	want := "- `blocked.example.org:443` (Setup): not in the allow-list; to allow it, add `blocked.example.org` to `network: {allow: [...]}` in `.github/warden.yml`"
	if !strings.Contains(body, "**Hosts the egress policy refused:**") || !strings.Contains(body, want) {
		t.Fatalf("the outcome comment does not list the refused host:\n%s", body)
	}
}
