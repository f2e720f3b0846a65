package chaos

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/warden-bot/warden/test/world"
)

// holdProxy stands between the bot and the fake GitHub (its API and, with
// GitOption, its git endpoint). Armed, it holds a matching request until
// the bot hangs up, so a test can kill a worker at an exact point of work
// that talks only to GitHub (Release after the PR is open, a push, a
// reply, a merge call), which no model hang can reach.
type holdProxy struct {
	srv *httptest.Server

	mu    sync.Mutex
	next  http.Handler
	holds []*hold // armed, each for one request
}

// hold is one armed point: the request to hold and what to let through.
type hold struct {
	method, prefix string
	match          func(path string, body []byte) bool // nil: any
	skip           int                                 // matching requests let through before the held one
	after          bool                                // forward the request, then hold its answer
	held           chan struct{}
}

func newHoldProxy(t *testing.T) *holdProxy {
	p := &holdProxy{}
	p.srv = httptest.NewServer(p)
	t.Cleanup(p.srv.Close)
	return p
}

// Option points the bot's GitHub API URL at the proxy, which forwards to the
// URL the world chose. Links GitHub returns point back at the proxy too,
// since the fake builds them from the Host header the proxy passes on.
func (p *holdProxy) Option() world.Option {
	return func(env map[string]string) {
		target, err := url.Parse(env["WARDEN_GITHUB_API_URL"])
		if err != nil {
			panic(err)
		}
		p.mu.Lock()
		p.next = httputil.NewSingleHostReverseProxy(target)
		p.mu.Unlock()
		env["WARDEN_GITHUB_API_URL"] = p.srv.URL + "/"
	}
}

// GitOption sends clones and pushes through the proxy too (the fake serves
// git under /git/ beside its API); it follows Option.
func (p *holdProxy) GitOption() world.Option {
	return func(env map[string]string) { env["WARDEN_GITHUB_URL"] = p.srv.URL + "/git/" }
}

// Arm holds the next request with method whose path starts with prefix; the
// returned predicate reports whether one arrived.
func (p *holdProxy) Arm(method, prefix string) func() bool {
	return p.arm(&hold{method: method, prefix: prefix})
}

// ArmMatch holds the next request with method under prefix for which
// match (of its path and body) holds.
func (p *holdProxy) ArmMatch(method, prefix string, match func(path string, body []byte) bool) func() bool {
	return p.arm(&hold{method: method, prefix: prefix, match: match})
}

// ArmNth lets n-1 matching requests through and holds the n-th.
func (p *holdProxy) ArmNth(method, prefix string, n int) func() bool {
	return p.arm(&hold{method: method, prefix: prefix, skip: n - 1})
}

// ArmAnswer lets the next matching request reach GitHub and holds its
// answer: the effect happened, the bot never hears of it. The predicate
// holds once GitHub answered.
func (p *holdProxy) ArmAnswer(method, prefix string) func() bool {
	return p.arm(&hold{method: method, prefix: prefix, after: true})
}

func (p *holdProxy) arm(h *hold) func() bool {
	h.held = make(chan struct{})
	p.mu.Lock()
	p.holds = append(p.holds, h)
	p.mu.Unlock()
	return func() bool {
		select {
		case <-h.held:
			return true
		default:
			return false
		}
	}
}

// take disarms and returns the hold r meets; nil lets r through. The
// body is read (and put back) only for a hold that looks into it.
func (p *holdProxy) take(r *http.Request) (*hold, http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, h := range p.holds {
		if r.Method != h.method || !strings.HasPrefix(r.URL.Path, h.prefix) || !h.matches(r) {
			continue
		}
		if h.skip > 0 {
			h.skip--
			return nil, p.next
		}
		p.holds = slices.Delete(p.holds, i, i+1)
		return h, p.next
	}
	return nil, p.next
}

func (h *hold) matches(r *http.Request) bool {
	if h.match == nil {
		return true
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return h.match(r.URL.Path, body)
}

func (p *holdProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, next := p.take(r)
	if h == nil {
		next.ServeHTTP(w, r)
		return
	}
	// Only once the body is read does the server watch the connection
	// and cancel the context when the killed worker's socket closes.
	if h.after {
		next.ServeHTTP(httptest.NewRecorder(), r)
	} else {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	close(h.held)
	<-r.Context().Done()
}
