// Package githubapp authenticates Warden as a GitHub App and hands out
// installation clients. It knows GitHub's auth, not Warden's pipeline.
package githubapp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

// App is one GitHub App: its JWT transport, a cache of installation clients
// and its own bot login.
type App struct {
	id      int64
	key     []byte
	baseURL string
	base    http.RoundTripper
	apps    *ghinstallation.AppsTransport

	mu       sync.Mutex
	installs map[int64]*installation
	login    string
	botID    int64
	// who serializes the first lookups of the App's identity: tasks that
	// start together (a run and its "queued" update) ask GitHub once.
	who sync.Mutex
}

type installation struct {
	tr     *ghinstallation.Transport
	client *github.Client
}

// Options configure New. BaseURL is the REST root (WARDEN_GITHUB_API_URL).
type Options struct {
	AppID      int64
	PrivateKey []byte
	BaseURL    string
	Transport  http.RoundTripper // defaults to a retrying transport over http.DefaultTransport
	// Observe, when set, hears of every request sent to GitHub and its
	// status code ("error" when none came back).
	Observe func(method, code string)
}

// New builds an App. It does not call GitHub.
func New(opts Options) (*App, error) {
	base := opts.Transport
	if base == nil {
		var wire http.RoundTripper = http.DefaultTransport
		if opts.Observe != nil {
			wire = observed{next: wire, observe: opts.Observe}
		}
		base = NewRetryTransport(wire)
	}
	apps, err := ghinstallation.NewAppsTransport(base, opts.AppID, opts.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("github app %d: parse private key: %w", opts.AppID, err)
	}
	baseURL := strings.TrimSuffix(opts.BaseURL, "/")
	apps.BaseURL = baseURL
	return &App{id: opts.AppID, key: opts.PrivateKey, baseURL: baseURL, base: base, apps: apps, installs: map[int64]*installation{}}, nil
}

func (a *App) newClient(rt http.RoundTripper) *github.Client {
	c := github.NewClient(&http.Client{Transport: deadline{next: rt, d: 30 * time.Second}})
	u, _ := url.Parse(a.baseURL + "/")
	c.BaseURL = u
	return c
}

// Client returns the cached client for an installation.
func (a *App) Client(id int64) *github.Client { return a.install(id).client }

func (a *App) install(id int64) *installation {
	a.mu.Lock()
	defer a.mu.Unlock()
	if in, ok := a.installs[id]; ok {
		return in
	}
	tr := ghinstallation.NewFromAppsTransport(a.apps, id)
	in := &installation{tr: tr, client: a.newClient(tr)}
	a.installs[id] = in
	return in
}

// Token returns a current installation token, for git over HTTPS.
func (a *App) Token(ctx context.Context, id int64) (string, error) {
	tok, err := a.install(id).tr.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("installation %d token: %w", id, err)
	}
	return tok, nil
}

// Invalidate forgets an installation's client and token, e.g. after an
// installation event changed its repositories or permissions.
func (a *App) Invalidate(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.installs, id)
}

// BotLogin is the App's own login (`<slug>[bot]`), from GET /app, cached.
func (a *App) BotLogin(ctx context.Context) (string, error) {
	if login, _ := a.identity(); login != "" {
		return login, nil
	}
	a.who.Lock()
	defer a.who.Unlock()
	if login, _ := a.identity(); login != "" {
		return login, nil // another caller asked while this one waited
	}
	app, _, err := a.newClient(a.apps).Apps.Get(ctx, "")
	if err != nil {
		return "", fmt.Errorf("get app: %w", err)
	}
	login := app.GetSlug() + "[bot]"
	a.mu.Lock()
	a.login = login
	a.mu.Unlock()
	return login, nil
}

// identity is the bot's login and user id as far as they are known.
func (a *App) identity() (string, int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.login, a.botID
}

// LearnBotID takes the bot's user id from GitHub's answer to a write made
// as login (the author of a comment Warden posted), so that BotID need not
// ask. An id for another login than the App's own is ignored.
func (a *App) LearnBotID(login string, id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.botID == 0 && id != 0 && login != "" && login == a.login {
		a.botID = id
	}
}

// BotID is the user id of the App's bot account, from GET /users/<login>
// through an installation (the App's JWT cannot read users), cached. With
// the login it makes the commit e-mail <id>+<login>@users.noreply.github.com
// that GitHub links to the App.
func (a *App) BotID(ctx context.Context, installation int64) (int64, error) {
	if _, id := a.identity(); id != 0 {
		return id, nil
	}
	login, err := a.BotLogin(ctx)
	if err != nil {
		return 0, err
	}
	a.who.Lock()
	defer a.who.Unlock()
	if _, id := a.identity(); id != 0 {
		return id, nil // another caller asked while this one waited
	}
	u, _, err := a.Client(installation).Users.Get(ctx, login)
	if err != nil {
		return 0, fmt.Errorf("get bot user %s: %w", login, err)
	}
	a.mu.Lock()
	a.botID = u.GetID()
	a.mu.Unlock()
	return u.GetID(), nil
}
