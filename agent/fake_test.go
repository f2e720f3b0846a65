package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
)

// testKey is the API key the fake servers expect; no error may quote it.
const testKey = "sk-test-0123456789abcdefSECRET"

// wireReply is what a fake model API answers.
type wireReply struct {
	status int
	header map[string]string
	body   string
}

// seen is one request as the fake server received it.
type seen struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
}

// fakeAPI is a model API on 127.0.0.1 that answers every request with the
// same wire reply and records what it was sent.
type fakeAPI struct {
	*httptest.Server
	mu    sync.Mutex
	reply wireReply
	calls []seen
}

func newFakeAPI(t *testing.T, reply wireReply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{reply: reply}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.calls = append(f.calls, seen{r.Method, r.URL.Path, r.Header.Clone(), body})
		reply := f.reply
		f.mu.Unlock()
		if _, ok := reply.header["Content-Type"]; !ok {
			w.Header().Set("Content-Type", "application/json")
		}
		for k, v := range reply.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(reply.status)
		_, _ = io.WriteString(w, reply.body)
	}))
	t.Cleanup(f.Close)
	return f
}

// answer changes the reply to later requests.
func (f *fakeAPI) answer(reply wireReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = reply
}

func (f *fakeAPI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.calls...)
}

// provider builds the API's provider through New (so behind its breaker).
// The base URL carries the test's name: breakers are keyed by endpoint and a
// closed server's port can come back in a later test.
func (f *fakeAPI) provider(t *testing.T, api, prefix string) Provider {
	t.Helper()
	return f.providerAt(t, api, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+prefix)
}

// providerAt builds the provider for the endpoint f.URL/path.
func (f *fakeAPI) providerAt(t *testing.T, api, path string) Provider {
	t.Helper()
	p, err := New(Config{
		API:        api,
		BaseURL:    f.URL + "/" + path,
		APIKey:     testKey,
		Timeout:    30 * time.Second,
		HTTPClient: f.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// providerCase is one wire reply and how its error must be classified.
type providerCase struct {
	name       string
	reply      wireReply
	class      outcome.Class
	retryAfter time.Duration
	mention    string // the error text must contain this
}

// runErrorCases calls a provider built by build for each case and checks
// the error's class (both typed and through outcome.Classify), its
// Retry-After, its text, and that it never quotes the API key.
func runErrorCases(t *testing.T, api, prefix string, cases []providerCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAPI(t, tc.reply)
			p := f.provider(t, api, prefix)
			resp, err := p.Chat(context.Background(), ChatRequest{Stage: "Plan", Messages: []Message{{Role: "user", Content: "hi"}}})
			if err == nil {
				t.Fatalf("no error; reply %+v", resp)
			}
			t.Log(err)
			if got := outcome.ClassOf(err); got != tc.class {
				t.Errorf("ClassOf = %q, want %q (%v)", got, tc.class, err)
			}
			v := outcome.Classify(err)
			if v.Class != tc.class || v.RetryAfter != tc.retryAfter {
				t.Errorf("Classify = %s retry after %s, want %s retry after %s (%v)", v.Class, v.RetryAfter, tc.class, tc.retryAfter, err)
			}
			if v.Fallback {
				t.Errorf("classified by the fallback, not by what the server said: %v", err)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the error quotes the API key: %v", err)
			}
			if tc.mention != "" && !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("%d requests, want exactly 1 (retries are the supervisor's)", n)
			}
		})
	}
}

// fakeProvider answers from a script, in process.
type fakeProvider struct {
	mu      sync.Mutex
	replies []ChatResponse
	errs    []error
	reqs    []ChatRequest
}

func (f *fakeProvider) Chat(_ context.Context, req ChatRequest) (ChatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	i := len(f.reqs) - 1
	if i < len(f.errs) && f.errs[i] != nil {
		return ChatResponse{}, f.errs[i]
	}
	if i >= len(f.replies) {
		return ChatResponse{}, errors.New("fakeProvider: no reply scripted")
	}
	return f.replies[i], nil
}

func (f *fakeProvider) requests() []ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ChatRequest(nil), f.reqs...)
}
