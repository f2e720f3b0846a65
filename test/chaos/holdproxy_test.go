package chaos

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/warden-bot/warden/test/world"
)

// holdProxy stands between the bot and the fake GitHub. Armed, it holds the
// next matching request until the bot hangs up, so a test can kill a worker
// at an exact point of a stage that talks only to GitHub (Release, after the
// PR is open), which no model hang can reach.
type holdProxy struct {
	srv *httptest.Server

	mu             sync.Mutex
	next           http.Handler
	method, prefix string // armed while prefix is set
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

// Arm holds the next request with method whose path starts with prefix; the
// returned predicate reports whether one arrived.
func (p *holdProxy) Arm(method, prefix string) func() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.method, p.prefix, p.held = method, prefix, make(chan struct{})
	held := p.held
	return func() bool {
		select {
		case <-held:
			return true
		default:
			return false
		}
	}
}

// take disarms the proxy and reports whether r is the request to hold.
func (p *holdProxy) take(r *http.Request) (bool, http.Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prefix == "" || r.Method != p.method || !strings.HasPrefix(r.URL.Path, p.prefix) {
		return false, p.next
	}
	p.prefix = ""
	close(p.held)
	return true, p.next
}

func (p *holdProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hold, next := p.take(r)
	if hold {
		// Only once the body is read does the server watch the connection
		// and cancel the context when the killed worker's socket closes.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return
	}
	next.ServeHTTP(w, r)
}
