// Package setup registers Warden as a GitHub App through GitHub's manifest
// flow, as Probot does: a local page posts deploy/app.yml to GitHub, GitHub
// sends the browser back with a one-time code, and the code is exchanged for
// the App's id, private key and webhook secret, which are written to a .env
// file (mode 0600). Nothing secret is logged or printed.
package setup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/warden-bot/warden/deploy"
)

// Options configure a setup run.
type Options struct {
	GitHubURL  string       // GitHub's web URL (WARDEN_GITHUB_URL)
	APIURL     string       // GitHub's REST root (WARDEN_GITHUB_API_URL)
	Org        string       // register the App for this organization; empty = the signed-in user
	PublicURL  string       // where GitHub reaches Warden; empty = a placeholder webhook URL
	EnvPath    string       // the .env file to create; default .env
	Force      bool         // replace an existing EnvPath
	Addr       string       // listen address; default 127.0.0.1:3000, port 0 = a free one
	HTTPClient *http.Client // for the conversion call; default a 30 s client
	Manifest   []byte       // YAML manifest; default deploy/app.yml
}

// Result is what setup created; it holds nothing secret.
type Result struct {
	AppID                        int64
	Name, Slug                   string
	HTMLURL, InstallURL          string
	EnvPath                      string
	WebhookURL                   string
	PlaceholderURL, NoHookSecret bool
}

// Server is a running setup: its page, its state and its callback.
type Server struct {
	o        Options
	ln       net.Listener
	srv      *http.Server
	gh       *github.Client
	state    string
	token    string // in the URL printed to the terminal; binds the browser (bind.go)
	action   string // where the form posts
	manifest string // the JSON the form carries
	hookURL  string

	mu       sync.Mutex
	finished bool
	done     chan struct{}
	result   *Result
	err      error
}

// Start checks the options, listens and serves the setup page.
func Start(o Options) (*Server, error) {
	o = withDefaults(o)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if !o.Force {
		if err := refuseExisting(o.EnvPath); err != nil {
			return nil, err
		}
	}
	s := &Server{o: o, done: make(chan struct{}), state: randomHex(32), token: randomHex(16), hookURL: webhookURL(o.PublicURL)}
	s.action = newAppURL(o.GitHubURL, o.Org, s.state)
	api, _ := url.Parse(strings.TrimSuffix(o.APIURL, "/") + "/")
	s.gh = github.NewClient(o.HTTPClient)
	s.gh.BaseURL = api
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	s.ln = ln
	manifest, err := manifestJSON(o.Manifest, s.URL()+"/callback", s.hookURL)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s.manifest = manifest
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func withDefaults(o Options) Options {
	if o.EnvPath == "" {
		o.EnvPath = ".env"
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:3000"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Manifest == nil {
		o.Manifest = deploy.AppManifest
	}
	return o
}

// URL is the setup page, e.g. http://127.0.0.1:3000.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Wait returns once GitHub called back and the .env file was written (or the
// conversion failed), or when ctx ends; then it stops the server.
func (s *Server) Wait(ctx context.Context) (*Result, error) {
	var res *Result
	var err error
	select {
	case <-ctx.Done():
		err = fmt.Errorf("setup stopped before GitHub called back: %w", ctx.Err())
	case <-s.done:
		res, err = s.result, s.err
	}
	// Shutdown lets the callback page finish; browsers keep speculative
	// connections open that it would wait seconds for, so those are closed.
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if s.srv.Shutdown(shut) != nil {
		_ = s.srv.Close()
	}
	return res, err
}

// Run is Start and Wait; announce is told the page's URL.
func Run(ctx context.Context, o Options, announce func(url string)) (*Result, error) {
	s, err := Start(o)
	if err != nil {
		return nil, err
	}
	announce(s.StartURL())
	return s.Wait(ctx)
}

// finish records the outcome once; the caller holds s.mu.
func (s *Server) finish(res *Result, err error) {
	s.finished, s.result, s.err = true, res, err
	close(s.done)
}

// complete exchanges the code for the App's credentials and writes them.
func (s *Server) complete(ctx context.Context, code string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cfg, _, err := s.gh.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		return nil, conversionError(err, code)
	}
	res := s.resultOf(cfg)
	if res.AppID <= 0 || !strings.Contains(cfg.GetPEM(), "PRIVATE KEY") {
		return nil, errors.New("GitHub's manifest conversion answered without an App id or private key")
	}
	content, err := renderEnv(envHeader(res), s.envVars(cfg))
	if err == nil {
		err = writeEnvFile(s.o.EnvPath, content, s.o.Force)
	}
	if err != nil {
		return nil, fmt.Errorf("the App %s was created, but its credentials were not saved (generate a private key in its settings): %w", res.HTMLURL, err)
	}
	return res, nil
}

func (s *Server) resultOf(cfg *github.AppConfig) *Result {
	html := cfg.GetHTMLURL()
	return &Result{AppID: cfg.GetID(), Name: cfg.GetName(), Slug: cfg.GetSlug(), HTMLURL: html,
		InstallURL: strings.TrimSuffix(html, "/") + "/installations/new", EnvPath: s.o.EnvPath,
		WebhookURL: s.hookURL, PlaceholderURL: s.o.PublicURL == "", NoHookSecret: cfg.GetWebhookSecret() == ""}
}

// envVars are the settings `bot serve` needs; the URLs only when they are
// not GitHub.com's (Enterprise Server, or a test server).
func (s *Server) envVars(cfg *github.AppConfig) []envVar {
	vars := []envVar{{"WARDEN_APP_ID", fmt.Sprint(cfg.GetID())}, {"WARDEN_PRIVATE_KEY", cfg.GetPEM()}}
	if secret := cfg.GetWebhookSecret(); secret != "" {
		vars = append(vars, envVar{"WARDEN_WEBHOOK_SECRET", secret})
	}
	// deploy/compose.yaml starts Redis with this password: whatever can
	// reach Redis can rewrite queued tasks and the spend ledger.
	vars = append(vars, envVar{"WARDEN_REDIS_PASSWORD", randomHex(32)})
	if s.o.GitHubURL != "https://github.com/" && s.o.GitHubURL != "https://github.com" {
		vars = append(vars, envVar{"WARDEN_GITHUB_URL", s.o.GitHubURL})
	}
	if strings.TrimSuffix(s.o.APIURL, "/") != "https://api.github.com" {
		vars = append(vars, envVar{"WARDEN_GITHUB_API_URL", s.o.APIURL})
	}
	return vars
}

func envHeader(r *Result) string {
	return fmt.Sprintf("Written by `bot setup` for the GitHub App %q (id %d, %s).\n"+
		"Secrets: keep this file private. Load it with `set -a; . ./.env; set +a`, or as docker compose's env_file.", r.Name, r.AppID, r.HTMLURL)
}

// conversionError says what GitHub answered, without the one-time code.
func conversionError(err error, code string) error {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return fmt.Errorf("GitHub refused the manifest conversion: %d %s: %s (run bot setup again; a code works once, for an hour)",
			ge.Response.StatusCode, http.StatusText(ge.Response.StatusCode), ge.Message)
	}
	return fmt.Errorf("manifest conversion failed: %s", strings.ReplaceAll(err.Error(), code, "<code>"))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
