// Package fakegithub is an in-memory GitHub REST API for Warden's tests: App
// JWT and installation-token auth, issues, comments, labels, permissions,
// pulls, statuses, check runs, reviews, contents, sub-issues and manifest
// conversions, with recorded calls and injected faults.
package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BotLogin is the App's login (slug "warden-test").
const BotLogin = "warden-test[bot]"

// Call is one request the server saw, with the time it was answered.
type Call struct {
	Method, Path string
	Status       int
	Time         time.Time
	Header       http.Header // the answer's headers
	// Subject is what a GraphQL request was about ("issue 7"), since its
	// path alone says nothing.
	Subject string
}

type fault struct {
	method, prefix string
	n, status      int
	body           []byte
	headers        map[string]string
	apply          bool          // serve the request first: the write happens, the answer is lost
	resetIn        time.Duration // a primary rate limit: x-ratelimit-reset this far from the answer
}

// Server is the fake API.
type Server struct {
	srv   *httptest.Server
	key   *rsa.PrivateKey
	appID int64

	mu          sync.Mutex
	tokens      map[string]int64
	installs    map[int64]bool
	repos       map[string]*Repo
	calls       []Call
	faults      []*fault
	down        bool
	nextID      int64
	conversions map[string]map[string]any
	created     []CreatedApp
	git         gitLog
}

// New starts the server.
func New() *Server {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	s := &Server{key: key, appID: 4711, tokens: map[string]int64{}, installs: map[int64]bool{}, repos: map[string]*Repo{},
		nextID: 1000, conversions: map[string]map[string]any{}}
	s.srv = httptest.NewServer(s.routes())
	return s
}

// URL is the API root.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.git.mu.Lock()
	defer s.git.mu.Unlock()
	if s.git.hooks != "" {
		os.RemoveAll(s.git.hooks)
	}
}

// AppID is the App's id.
func (s *Server) AppID() int64 { return s.appID }

// PrivateKeyPEM is the App's private key.
func (s *Server) PrivateKeyPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.key)})
}

// AddInstallation makes an installation known.
func (s *Server) AddInstallation(id int64) { s.mu.Lock(); s.installs[id] = true; s.mu.Unlock() }

// FailNext makes the next n requests matching method and path prefix fail;
// a prefix ending in "$" matches that path exactly.
func (s *Server) FailNext(method, pathPrefix string, n, status int, body []byte, headers map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, prefix: pathPrefix, n: n, status: status, body: body, headers: headers})
}

// RateLimitNext answers the next n matching requests 403 with GitHub's
// primary rate-limit headers: none remaining, and a reset (whole epoch
// seconds, as GitHub sends it) at least resetIn after the answer.
func (s *Server) RateLimitNext(method, pathPrefix string, n int, body []byte, resetIn time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, prefix: pathPrefix, n: n, status: http.StatusForbidden, body: body, resetIn: resetIn})
}

// ApplyThenFail is FailNext for a fault behind the server: the request is
// served (a POST creates what it asks for) but the client is answered
// status instead, as when GitHub's proxy times out after the backend wrote.
func (s *Server) ApplyThenFail(method, pathPrefix string, n, status int, body []byte, headers map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, prefix: pathPrefix, n: n, status: status, body: body, headers: headers, apply: true})
}

// FaultsLeft counts the injected faults no request has met yet.
func (s *Server) FaultsLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.faults {
		n += f.n
	}
	return n
}

// ClearFaults drops the injected faults no request has met yet.
func (s *Server) ClearFaults() { s.mu.Lock(); s.faults = nil; s.mu.Unlock() }

// SetDown makes every request answer 502.
func (s *Server) SetDown(down bool) { s.mu.Lock(); s.down = down; s.mu.Unlock() }

// AddConversion registers a manifest code for POST /app-manifests/{code}/conversions.
func (s *Server) AddConversion(code string, app map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conversions[code] = app
}

// Calls lists every request so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CountCalls counts requests by method and path prefix.
func (s *Server) CountCalls(method, prefix string) int {
	n := 0
	for _, c := range s.Calls() {
		if (method == "" || c.Method == method) && strings.HasPrefix(c.Path, prefix) {
			n++
		}
	}
	return n
}

func (s *Server) id() int64 { s.nextID++; return s.nextID }

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type recorder struct {
	http.ResponseWriter
	status  int
	subject string
}

// about names what a GraphQL request was about in its Call.
func about(w http.ResponseWriter, subject string) {
	if rec, ok := w.(*recorder); ok {
		rec.subject = subject
	}
}

func (r *recorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

// discard is the lost answer of a request served behind a fault.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// middleware records calls, injects faults and checks auth.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w, status: 200}
		defer func() {
			s.mu.Lock()
			s.calls = append(s.calls, Call{r.Method, r.URL.Path, rec.status, time.Now(), rec.Header().Clone(), rec.subject})
			s.mu.Unlock()
		}()
		if f := s.takeFault(r); f != nil {
			if f.apply && s.authorized(r) {
				next.ServeHTTP(discard{http.Header{}}, r)
			}
			for k, v := range f.headers {
				rec.Header().Set(k, v)
			}
			if f.resetIn > 0 {
				reset := time.Now().Add(f.resetIn + time.Second - 1).Unix() // rounded up
				for k, v := range map[string]string{"X-Ratelimit-Limit": "5000", "X-Ratelimit-Remaining": "0", "X-Ratelimit-Used": "5000",
					"X-Ratelimit-Resource": "core", "X-Ratelimit-Reset": strconv.FormatInt(reset, 10)} {
					rec.Header().Set(k, v)
				}
			}
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(f.status)
			rec.Write(f.body)
			return
		}
		if !s.authorized(r) {
			writeJSON(rec, 401, json.RawMessage(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

func (s *Server) takeFault(r *http.Request) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return &fault{status: 502, body: []byte(`{"message":"Server Error"}`)}
	}
	for _, f := range s.faults {
		if f.n > 0 && (f.method == "" || f.method == r.Method) && matchPath(r.URL.Path, f.prefix) {
			f.n--
			return f
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, 404, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func matchPath(path, prefix string) bool {
	if exact, ok := strings.CutSuffix(prefix, "$"); ok {
		return path == exact
	}
	return strings.HasPrefix(path, prefix)
}
