package webhooks

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-bot/warden/jobs"
)

func labeled(t testing.TB, label, sender string) []byte {
	return withInstallation(t, fixture(t, "issues.labeled.json"), func(m map[string]any) {
		m["label"] = map[string]any{"name": label}
		m["sender"].(map[string]any)["login"] = sender
	})
}

// Every real fixture, signed, is answered 2xx; tampered, 401.
func TestEveryFixtureSignedAndTampered(t *testing.T) {
	dir := "../test/fixtures/webhooks"
	if _, err := os.Stat(dir); err != nil {
		dir = "../../shared/fixtures/webhooks"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) < 15 {
		t.Fatalf("found %d fixtures in %s", len(files), dir)
	}
	for _, f := range files {
		name := filepath.Base(f)
		event := strings.SplitN(strings.TrimSuffix(name, ".json"), ".", 2)[0]
		body, _ := os.ReadFile(f)
		r := newRig()
		code, d := r.post(t, event, "d-"+name, body, nil)
		if code != http.StatusOK && code != http.StatusAccepted {
			t.Errorf("%s: signed delivery answered %d %+v", name, code, d)
		}
		tampered := bytes.Replace(body, []byte(`"`), []byte(`'`), 1)
		code, _ = r.post(t, event, "t-"+name, tampered, map[string]string{"X-Hub-Signature-256": sign(body)})
		if code != http.StatusUnauthorized {
			t.Errorf("%s: tampered delivery answered %d", name, code)
		}
	}
}

func TestLabeledTriggerQueuesOnce(t *testing.T) {
	r := newRig()
	body := labeled(t, "warden:maintenance", "Codertocat")
	code, d := r.post(t, "issues", "one", body, nil)
	if code != http.StatusAccepted || d.Status != "queued" {
		t.Fatalf("got %d %+v", code, d)
	}
	if len(r.q.runs) != 1 || r.q.runs[0].Mode != "maintenance" || r.q.runs[0].Repo != "Codertocat/Hello-World" || r.q.runs[0].Installation != 42 {
		t.Fatalf("runs = %+v", r.q.runs)
	}
	if len(r.q.statuses) != 1 || r.q.statuses[0].State != "queued" {
		t.Fatalf("statuses = %+v", r.q.statuses)
	}
	code, d = r.post(t, "issues", "one", body, nil)
	if code != http.StatusOK || d.Status != "duplicate" || len(r.q.runs) != 1 {
		t.Fatalf("redelivery: %d %+v runs=%d", code, d, len(r.q.runs))
	}
	code, d = r.post(t, "issues", "replayed", body, nil) // the signed body again, under a new id
	if code != http.StatusOK || d.Status != "duplicate" || len(r.q.runs) != 1 {
		t.Fatalf("replay under a new id: %d %+v runs=%d", code, d, len(r.q.runs))
	}
	r.q.already = true
	code, d = r.post(t, "issues", "two", append(body, '\n'), nil) // another event: GitHub signs another body
	if code != http.StatusOK || d.Status != "already_queued" {
		t.Fatalf("second delivery for the same issue: %d %+v", code, d)
	}
}

func TestPermissionGate(t *testing.T) {
	cases := map[string]bool{"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "error": false}
	for perm, allowed := range cases {
		r := newRig()
		r.perms["someone"] = perm
		code, d := r.post(t, "issues", "p-"+perm, labeled(t, "warden:evolution", "someone"), nil)
		if allowed != (code == http.StatusAccepted) || allowed != (len(r.q.runs) == 1) {
			t.Errorf("%s: got %d %+v, runs %d", perm, code, d, len(r.q.runs))
		}
		if !allowed && (code != http.StatusOK || d.Status != "refused") {
			t.Errorf("%s: refusal answered %d %+v", perm, code, d)
		}
	}
}

func TestNonTriggerLabelAndBotIgnored(t *testing.T) {
	r := newRig()
	if _, d := r.post(t, "issues", "a", labeled(t, "bug", "Codertocat"), nil); d.Status != "ignored" {
		t.Fatalf("bug label: %+v", d)
	}
	if _, d := r.post(t, "issues", "b", labeled(t, "warden:maintenance", "warden-test[bot]"), nil); d.Status != "ignored" {
		t.Fatalf("bot sender: %+v", d)
	}
	if len(r.q.runs) != 0 {
		t.Fatal("queued something")
	}
}

func TestUnlabelCancels(t *testing.T) {
	r := newRig()
	r.q.cancel = jobs.CanceledQueued
	body := withInstallation(t, fixture(t, "issues.unlabeled.json"), func(m map[string]any) {
		m["label"] = map[string]any{"name": "warden:maintenance"}
	})
	code, d := r.post(t, "issues", "u", body, nil)
	if code != http.StatusOK || len(r.q.cancels) != 1 || len(r.q.statuses) != 1 || r.q.statuses[0].State != "canceled" {
		t.Fatalf("got %d %+v cancels=%v statuses=%+v", code, d, r.q.cancels, r.q.statuses)
	}
}

func TestCodes(t *testing.T) {
	r := newRig()
	body := labeled(t, "warden:maintenance", "Codertocat")
	cases := []struct {
		name string
		hdr  map[string]string
		body []byte
		want int
	}{
		{"no signature", map[string]string{"X-Hub-Signature-256": ""}, body, 401},
		{"sha1 only", map[string]string{"X-Hub-Signature-256": "", "X-Hub-Signature": "sha1=abc"}, body, 401},
		{"no event", map[string]string{"X-GitHub-Event": ""}, body, 400},
		{"no delivery", map[string]string{"X-GitHub-Delivery": ""}, body, 400},
		{"not json", nil, []byte("{not json"), 400},
		{"wrong shape", nil, []byte(`{"action":"labeled","issue":"seven"}`), 400},
		// Events Warden does not decode still have their JSON checked.
		{"ping not json", nil, []byte("{not json"), 400},
		{"unhandled not json", nil, []byte(`{"action":`), 400},
		{"unhandled", nil, []byte(`{"action":"created"}`), 200},
	}
	events := map[string]string{"ping not json": "ping", "unhandled not json": "fork", "unhandled": "fork"}
	for i, tc := range cases {
		hdr := tc.hdr
		if hdr == nil {
			hdr = map[string]string{}
		}
		if _, ok := hdr["X-Hub-Signature-256"]; !ok {
			hdr["X-Hub-Signature-256"] = sign(tc.body)
		}
		event := events[tc.name]
		if event == "" {
			event = "issues"
		}
		code, _ := r.post(t, event, "c"+string(rune('a'+i)), tc.body, hdr)
		if code != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, code, tc.want)
		}
	}
}

func TestBodyOverLimit(t *testing.T) {
	r := newRig()
	big := bytes.Repeat([]byte("a"), MaxBody+1)
	code, _ := r.post(t, "issues", "big", big, nil)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %d", code)
	}
}

// A dead queue answers 503 and the delivery is not remembered: GitHub's
// redelivery with the same id is processed.
func TestQueueDownIs503AndRedeliverable(t *testing.T) {
	r := newRig()
	body := labeled(t, "warden:maintenance", "Codertocat")
	r.q.fail = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	if code, _ := r.post(t, "issues", "x", body, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("got %d", code)
	}
	r.q.fail = nil
	if code, _ := r.post(t, "issues", "x", body, nil); code != http.StatusAccepted {
		t.Fatalf("redelivery got %d", code)
	}
	r.store.fail = errors.New("redis down")
	if code, _ := r.post(t, "issues", "y", body, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("store down got %d", code)
	}
}

func TestFormEncodedPayload(t *testing.T) {
	r := newRig()
	payload := labeled(t, "warden:maintenance", "Codertocat")
	form := []byte("payload=" + urlQueryEscape(string(payload)))
	code, d := r.post(t, "issues", "form", form, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if code != http.StatusAccepted {
		t.Fatalf("got %d %+v", code, d)
	}
}

// A person's label is told from Warden's own without asking for the App's
// login (a GET /app on a fresh process); a "[bot]" sender is compared with it.
func TestHumanSenderNeedsNoBotLogin(t *testing.T) {
	r := newRig()
	if code, d := r.post(t, "issues", "human", labeled(t, "warden:maintenance", "Codertocat"), nil); code != http.StatusAccepted {
		t.Fatalf("got %d %+v", code, d)
	}
	if r.app.logins != 0 {
		t.Fatalf("the App's login was asked %d times for a person's label", r.app.logins)
	}
	if _, d := r.post(t, "issues", "bot", labeled(t, "warden:maintenance", "warden-test[bot]"), nil); d.Status != "ignored" || r.app.logins != 1 {
		t.Fatalf("Warden's own label: %+v, login asked %d times", d, r.app.logins)
	}
}
