package webhooks

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

var contractCodes = map[int]bool{200: true, 202: true, 400: true, 401: true, 413: true, 503: true}

// FuzzHandler throws arbitrary bodies and headers at the handler, signed and
// unsigned: it must never panic nor answer a code outside CONTRACT §3.
func FuzzHandler(f *testing.F) {
	for _, name := range []string{"issues.labeled.json", "issue_comment.created.json", "pull_request.synchronize.json", "check_suite.completed.json", "status.json", "ping.json"} {
		body := withInstallation(f, fixture(f, name), nil)
		f.Add(strings.SplitN(name, ".", 2)[0], "d1", body, true, "application/json")
	}
	f.Add("issues", "", []byte(`{}`), false, "")
	f.Add("issue_comment", "x", []byte(`{"action":"created","comment":{"body":"/warden retry"},"issue":{"number":1},"repository":{"name":"r","owner":{"login":"o"}},"sender":{"login":"s"}}`), true, "application/json")
	f.Add("issues", "y", []byte("payload=%7B%7D"), true, "application/x-www-form-urlencoded")
	f.Fuzz(func(t *testing.T, event, delivery string, body []byte, signed bool, contentType string) {
		r := newRig()
		req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(string(body)))
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("X-GitHub-Delivery", delivery)
		req.Header.Set("Content-Type", contentType)
		if signed {
			req.Header.Set("X-Hub-Signature-256", sign(body))
		}
		rec := httptest.NewRecorder()
		r.e.ServeHTTP(rec, req)
		if !contractCodes[rec.Code] {
			t.Fatalf("answered %d for event %q: %s", rec.Code, event, rec.Body.String())
		}
		if !signed && rec.Code != http.StatusUnauthorized && rec.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("unsigned delivery answered %d", rec.Code)
		}
	})
}
