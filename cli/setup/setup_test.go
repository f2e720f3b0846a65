package setup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
)

// start runs a setup server on a free port writing to a temp .env.
func start(t *testing.T, o Options) *Server {
	t.Helper()
	if o.GitHubURL == "" {
		o.GitHubURL = "https://github.com/"
	}
	if o.APIURL == "" {
		o.APIURL = "https://api.github.com/"
	}
	if o.EnvPath == "" {
		o.EnvPath = filepath.Join(t.TempDir(), ".env")
	}
	o.Addr = "127.0.0.1:0"
	s, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = s.Wait(ctx)
	})
	return s
}

var (
	actionRE   = regexp.MustCompile(`<form action="([^"]+)"`)
	manifestRE = regexp.MustCompile(`name="manifest" value="([^"]+)"`)
)

// form reads the setup page: where it posts and the manifest it carries.
func form(t *testing.T, s *Server) (action, manifest string) {
	t.Helper()
	code, body := get(t, s.StartURL())
	a, m := actionRE.FindStringSubmatch(body), manifestRE.FindStringSubmatch(body)
	if code != 200 || a == nil || m == nil {
		t.Fatalf("setup page %d:\n%s", code, body)
	}
	return html.UnescapeString(a[1]), html.UnescapeString(m[1])
}

// browser keeps the setup's cookie between the page and the callback, as
// the operator's browser does.
var browser = func() *http.Client { jar, _ := cookiejar.New(nil); return &http.Client{Jar: jar} }()

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := browser.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func stateOf(t *testing.T, action string) string {
	t.Helper()
	u, err := url.Parse(action)
	if err != nil || u.Query().Get("state") == "" {
		t.Fatalf("form action %q carries no state", action)
	}
	return u.Query().Get("state")
}

func callback(t *testing.T, s *Server, code, state string) (int, string) {
	t.Helper()
	return get(t, s.URL()+"/callback?"+url.Values{"code": {code}, "state": {state}}.Encode())
}

func wait(t *testing.T, s *Server) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Wait(ctx)
}

func TestManifestFlowWritesEnvFile(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	s := start(t, Options{GitHubURL: gh.URL() + "/", APIURL: gh.URL() + "/", PublicURL: "https://warden.example.com/"})
	action, manifest := form(t, s)
	if !strings.HasPrefix(action, gh.URL()+"/settings/apps/new?state=") {
		t.Fatalf("form posts to %q", action)
	}
	// The browser's part, without a browser: post the manifest, confirm, follow the redirect back.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := http.PostForm(action, url.Values{"manifest": {manifest}}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("posting the manifest: %v %v", resp, err)
	}
	resp, err := noFollow.PostForm(gh.URL()+"/settings/apps/new/confirm", url.Values{"manifest": {manifest}, "state": {stateOf(t, action)}, "owner": {"acme"}})
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("confirming: %v %v", resp, err)
	}
	if code, body := get(t, resp.Header.Get("Location")); code != 200 || !strings.Contains(body, "/apps/warden/installations/new") {
		t.Fatalf("callback %d:\n%s", code, body)
	}
	res, err := wait(t, s)
	if err != nil {
		t.Fatal(err)
	}
	app := gh.CreatedApps()[0].App
	if res.AppID != gh.AppID() || res.InstallURL != gh.URL()+"/apps/warden/installations/new" || res.PlaceholderURL {
		t.Fatalf("result %+v", res)
	}
	if fi, err := os.Stat(res.EnvPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env: %v %v", fi.Mode(), err)
	}
	env := harness.Sourced(t, res.EnvPath)
	want := map[string]string{"WARDEN_APP_ID": fmt.Sprint(gh.AppID()), "WARDEN_PRIVATE_KEY": string(gh.PrivateKeyPEM()),
		"WARDEN_WEBHOOK_SECRET": app["webhook_secret"].(string), "WARDEN_GITHUB_API_URL": gh.URL() + "/"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	// deploy/compose.yaml starts Redis with this password.
	if p := env["WARDEN_REDIS_PASSWORD"]; len(p) != 64 || strings.Trim(p, "0123456789abcdef") != "" {
		t.Errorf("WARDEN_REDIS_PASSWORD = %q, want 64 random hex digits", p)
	}
	cfg, _, err := config.Load(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Validate("all") != nil || !cfg.HasApp() {
		t.Fatalf("bot serve would not accept the .env: %v %v", err, cfg.Validate("all"))
	}
}

func TestManifestCarriesPermissionsEventsAndURLs(t *testing.T) {
	s := start(t, Options{PublicURL: "https://warden.example.com/"})
	_, raw := form(t, s)
	m := mustJSON(t, raw)
	if m["redirect_url"] != s.URL()+"/callback" || dig(m, "hook_attributes", "url") != "https://warden.example.com/webhooks" {
		t.Fatalf("redirect %v, hook %v", m["redirect_url"], dig(m, "hook_attributes", "url"))
	}
	perms := map[string]string{"issues": "write", "pull_requests": "write", "contents": "write", "statuses": "write", "checks": "write", "actions": "read", "metadata": "read",
		"administration": "read", "merge_queues": "write", "members": "read"}
	for k, v := range perms {
		if dig(m, "default_permissions", k) != v {
			t.Errorf("permission %s = %v, want %s", k, dig(m, "default_permissions", k), v)
		}
	}
	// The events webhooks/router.go handles; installation and
	// installation_repositories reach every App without a subscription.
	var events []string
	for _, e := range m["default_events"].([]any) {
		events = append(events, e.(string))
	}
	for _, e := range []string{"issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment", "check_suite", "check_run", "status",
		"merge_group", "branch_protection_rule", "repository_ruleset", "member", "organization"} {
		if !slices.Contains(events, e) {
			t.Errorf("event %s missing from %v", e, events)
		}
	}
	if slices.Contains(events, "installation") {
		t.Error("GitHub refuses a manifest subscribing to installation")
	}
	s2 := start(t, Options{})
	if _, raw := form(t, s2); dig(mustJSON(t, raw), "hook_attributes", "url") != PlaceholderWebhookURL {
		t.Fatal("without a public URL the webhook URL must be the placeholder")
	}
}

func TestStateMismatchIsRefused(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	gh.AddConversion("abc123", map[string]any{"id": 7, "pem": string(gh.PrivateKeyPEM()), "webhook_secret": "whs", "html_url": "https://github.com/apps/x"})
	s := start(t, Options{APIURL: gh.URL()})
	action, _ := form(t, s)
	for _, state := range []string{"", "forged", stateOf(t, action) + "x"} {
		if code, body := callback(t, s, "abc123", state); code != 400 || !strings.Contains(body, "refused") {
			t.Fatalf("state %q: %d %s", state, code, body)
		}
	}
	if n := gh.CountCalls("POST", "/app-manifests/"); n != 0 {
		t.Fatalf("a refused callback converted the code (%d calls)", n)
	}
	if _, err := os.Stat(s.o.EnvPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused callback wrote .env")
	}
	if code, _ := callback(t, s, "abc123", stateOf(t, action)); code != 200 {
		t.Fatalf("the right state after forged ones: %d", code)
	}
	if res, err := wait(t, s); err != nil || res.AppID != 7 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestConversionErrorSurfaces(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	gh.FailNext("POST", "/app-manifests/", 1, 422, []byte(`{"message":"Validation Failed: the code has expired"}`), nil)
	s := start(t, Options{APIURL: gh.URL()})
	action, _ := form(t, s)
	code, body := callback(t, s, "secretcode42", stateOf(t, action))
	_, err := wait(t, s)
	if code != 502 || err == nil {
		t.Fatalf("callback %d, err %v", code, err)
	}
	for _, msg := range []string{body, err.Error()} {
		if !strings.Contains(msg, "GitHub refused the manifest conversion: 422") || !strings.Contains(msg, "the code has expired") || strings.Contains(msg, "secretcode42") {
			t.Fatalf("unclear or leaking error: %s", msg)
		}
	}
	if _, err := os.Stat(s.o.EnvPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatal(".env written after a failed conversion")
	}
}

func TestNoOverwriteWithoutForce(t *testing.T) {
	gh := fakegithub.New()
	defer gh.Close()
	path := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(path, []byte("KEEP=1\n"), 0o644)
	if _, err := Start(Options{GitHubURL: "https://github.com/", APIURL: gh.URL(), EnvPath: path, Addr: "127.0.0.1:0"}); !errors.Is(err, ErrExists) {
		t.Fatalf("existing .env: %v", err)
	}
	// Appearing while the user is on GitHub is refused too, and kept.
	os.Remove(path)
	gh.AddConversion("c1", map[string]any{"id": 7, "pem": string(gh.PrivateKeyPEM()), "webhook_secret": "whs", "html_url": "https://github.com/apps/x"})
	s := start(t, Options{APIURL: gh.URL(), EnvPath: path})
	os.WriteFile(path, []byte("KEEP=1\n"), 0o644)
	action, _ := form(t, s)
	callback(t, s, "c1", stateOf(t, action))
	if _, err := wait(t, s); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "https://github.com/apps/x") {
		t.Fatalf("%v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "KEEP=1\n" {
		t.Fatalf("overwritten: %q", b)
	}
	// --force replaces it, and the result is 0600 although the old file was 0644.
	gh.AddConversion("c2", map[string]any{"id": 7, "pem": string(gh.PrivateKeyPEM()), "webhook_secret": "whs", "html_url": "https://github.com/apps/x"})
	s = start(t, Options{APIURL: gh.URL(), EnvPath: path, Force: true})
	action, _ = form(t, s)
	callback(t, s, "c2", stateOf(t, action))
	if _, err := wait(t, s); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || harness.Sourced(t, path)["WARDEN_APP_ID"] != "7" {
		t.Fatalf("forced .env: %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".env-warden-*")); len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestEnterpriseURLsAreHonoured(t *testing.T) {
	var hits []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits = append(hits, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id":42,"name":"Warden","html_url":"https://ghe.example.test/github-apps/warden","pem":%q,"webhook_secret":"whs"}`, "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n")
	}))
	defer api.Close()
	s := start(t, Options{GitHubURL: "https://ghe.example.test/", APIURL: api.URL + "/api/v3/", Org: "platform"})
	action, _ := form(t, s)
	if !strings.HasPrefix(action, "https://ghe.example.test/organizations/platform/settings/apps/new?state=") {
		t.Fatalf("form posts to %q", action)
	}
	callback(t, s, "ghecode", stateOf(t, action))
	res, err := wait(t, s)
	if err != nil || !slices.Equal(hits, []string{"POST /api/v3/app-manifests/ghecode/conversions"}) {
		t.Fatalf("%v, API calls %v", err, hits)
	}
	env := harness.Sourced(t, res.EnvPath)
	if env["WARDEN_GITHUB_URL"] != "https://ghe.example.test/" || env["WARDEN_GITHUB_API_URL"] != api.URL+"/api/v3/" {
		t.Fatalf("Enterprise URLs not saved: %v %v", env["WARDEN_GITHUB_URL"], env["WARDEN_GITHUB_API_URL"])
	}
	if res.InstallURL != "https://ghe.example.test/github-apps/warden/installations/new" {
		t.Fatalf("install URL %q", res.InstallURL)
	}
}

func TestOtherHostNamesAreRefused(t *testing.T) {
	s := start(t, Options{})
	req, _ := http.NewRequest("GET", s.URL()+"/", nil)
	req.Host = "rebound.example.com"
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
}

func TestBadSettingsNameThemselves(t *testing.T) {
	for setting, o := range map[string]Options{
		"WARDEN_GITHUB_URL":     {GitHubURL: "github.com", APIURL: "https://api.github.com/"},
		"WARDEN_GITHUB_API_URL": {GitHubURL: "https://github.com/", APIURL: "ftp://x"},
		"WARDEN_PUBLIC_URL":     {GitHubURL: "https://github.com/", APIURL: "https://api.github.com/", PublicURL: "warden.example.com"},
	} {
		var ce *config.Error
		if _, err := Start(o); !errors.As(err, &ce) || ce.Setting != setting {
			t.Errorf("%s: %v", setting, err)
		}
	}
}

func TestEnvValuesThatCannotBeQuotedAreRefused(t *testing.T) {
	if _, err := renderEnv("h", []envVar{{"X", "it's"}}); err == nil {
		t.Fatal("a single quote was written")
	}
	b, err := renderEnv("line one\nline two", []envVar{{"A", "$HOME `x` \"y\"\nz"}})
	if err != nil || string(b) != "# line one\n# line two\nA='$HOME `x` \"y\"\nz'\n" {
		t.Fatalf("%q %v", b, err)
	}
	path := filepath.Join(t.TempDir(), ".env")
	if err := writeEnvFile(path, b, false); err != nil {
		t.Fatal(err)
	}
	if got := harness.Sourced(t, path)["A"]; got != "$HOME `x` \"y\"\nz" {
		t.Fatalf("the shell read %q", got)
	}
}

func mustJSON(t *testing.T, raw string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func dig(m any, path ...string) any {
	for _, p := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[p]
	}
	return m
}
