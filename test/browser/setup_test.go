// Package browser_test clicks through `bot setup` in headless Chromium
// against the fake GitHub: the real binary's page, the fake's manifest pages,
// the callback, the .env it writes, and `bot serve` started from that file.
package browser_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/harness"
)

const chromiumPath = "/usr/bin/chromium"

// browser starts headless Chromium with a fresh profile and nothing that
// reaches beyond loopback (without the background-networking flags Chromium
// stalls on this closed network).
func browser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s not found (%v): apt-get install chromium", chromiumPath, err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	return tab
}

// setupRun is a running `bot setup`.
type setupRun struct {
	url    string
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
	copied chan struct{} // closed once stdout is read to its end
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// startSetup runs `bot setup` and reads its page's URL from the first line.
func startSetup(t *testing.T, bin string, args ...string) *setupRun {
	t.Helper()
	r := &setupRun{cmd: exec.Command(bin, append([]string{"setup", "--port", "0"}, args...)...), copied: make(chan struct{})}
	r.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	r.cmd.Stderr = &r.stderr
	pipe, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); <-r.copied; _ = r.cmd.Wait() })
	br := bufio.NewReader(pipe)
	line, err := br.ReadString('\n')
	r.stdout.Write([]byte(line))
	go func() { _, _ = io.Copy(&r.stdout, br); close(r.copied) }()
	if r.url = regexp.MustCompile(`http://127\.0\.0\.1:\d+\S*`).FindString(line); err != nil || r.url == "" {
		t.Fatalf("bot setup printed no URL: %q %v\n%s", line, err, r.stderr.String())
	}
	return r
}

// wait waits for `bot setup` to exit by itself.
func (r *setupRun) wait(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-r.copied:
	case <-ctx.Done():
		t.Fatalf("bot setup did not exit after the callback:\n%s%s", r.stdout.String(), r.stderr.String())
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("bot setup: %v\n%s", err, r.stderr.String())
	}
}

func TestSetupInBrowser(t *testing.T) {
	bin := harness.BuildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab := browser(t, ctx)
	gh := fakegithub.New()
	defer gh.Close()
	envPath := filepath.Join(t.TempDir(), ".env")
	run := startSetup(t, bin, "--env-file", envPath, "--github-url", gh.URL()+"/",
		"--github-api-url", gh.URL()+"/", "--public-url", "https://warden.example.com")
	setupURL := run.url // with its one-time token: the page answers only that browser
	base, _, _ := strings.Cut(setupURL, "/?")

	// Our page posts the manifest to the fake GitHub, whose "Create" button
	// sends the browser to our callback.
	err := chromedp.Do(tab, chromedp.Navigate(setupURL), chromedp.Click(chromedp.ID("register")))
	manifest, err2 := chromedp.Run(tab, chromedp.Text(chromedp.ID("manifest")))
	if err = errors.Join(err, err2, chromedp.Do(tab, chromedp.Click(chromedp.ID("create")))); err != nil {
		t.Fatalf("clicking through: %v\nsetup stderr: %s", err, run.stderr.String())
	}
	_, err = chromedp.Run(tab, chromedp.Text(chromedp.ID("install"))) // only the callback's page has it
	done, err2 := chromedp.Run(tab, chromedp.Text(chromedp.CSS("body")))
	location, err3 := chromedp.Run(tab, chromedp.Location())
	if err = errors.Join(err, err2, err3); err != nil {
		t.Fatalf("the callback page: %v\nsetup stderr: %s", err, run.stderr.String())
	}
	if !strings.Contains(manifest, base+"/callback") || !strings.Contains(manifest, "https://warden.example.com/webhooks") {
		t.Fatalf("GitHub received the manifest:\n%s", manifest)
	}
	if !strings.HasPrefix(location, base+"/callback?") || !strings.Contains(done, "GitHub App created") {
		t.Fatalf("landed on %s:\n%s", location, done)
	}
	run.wait(t, ctx)

	app := gh.CreatedApps()[0].App
	checkEnvFile(t, envPath, app)
	out := run.stdout.String() + run.stderr.String()
	if !strings.Contains(out, "Created the GitHub App") || !strings.Contains(out, gh.URL()+"/apps/warden/installations/new") {
		t.Fatalf("bot setup's output does not say what to do next:\n%s", out)
	}
	for _, s := range []string{app["pem"].(string)[40:80], app["webhook_secret"].(string), app["client_secret"].(string)} {
		if strings.Contains(out, s) {
			t.Fatalf("bot setup printed a secret:\n%s", out)
		}
	}
	serveFromEnvFile(t, ctx, bin, envPath, app, gh)
}

// checkEnvFile: mode 0600, and the shell reads back what the fake issued.
func checkEnvFile(t *testing.T, path string, app map[string]any) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env: %v, mode %v", err, fi.Mode())
	}
	env := harness.Sourced(t, path)
	want := map[string]string{"WARDEN_APP_ID": fmt.Sprint(app["id"]), "WARDEN_PRIVATE_KEY": app["pem"].(string),
		"WARDEN_WEBHOOK_SECRET": app["webhook_secret"].(string)}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s in .env = %q, want %q", k, env[k], v)
		}
	}
}

// serveFromEnvFile starts `bot serve` with exactly the .env's settings: it
// must come up with the App configured, accept a delivery signed with the
// webhook secret, and the key must authenticate as the App.
func serveFromEnvFile(t *testing.T, ctx context.Context, bin, path string, app map[string]any, gh *fakegithub.Server) {
	t.Helper()
	env := map[string]string{}
	for k, v := range harness.Sourced(t, path) {
		if strings.HasPrefix(k, "WARDEN_") {
			env[k] = v
		}
	}
	bot := harness.StartBinary(t, bin, env)
	if strings.Contains(bot.Logs(), "no GitHub App configured") {
		t.Fatalf("bot serve ignored the App in .env:\n%s", bot.Logs())
	}
	resp, err := http.DefaultClient.Do(harness.NewDelivery(bot.URL()+"/webhooks", "ping", "setup-ping-1", []byte(`{"zen":"hi"}`), env["WARDEN_WEBHOOK_SECRET"]))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("signed ping: %v %v\n%s", resp, err, bot.Logs())
	}
	resp.Body.Close()
	a, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: []byte(env["WARDEN_PRIVATE_KEY"]), BaseURL: env["WARDEN_GITHUB_API_URL"]})
	if err != nil {
		t.Fatal(err)
	}
	if login, err := a.BotLogin(ctx); err != nil || login != fakegithub.BotLogin {
		t.Fatalf("the key from .env does not authenticate as the App: %q %v", login, err)
	}
}
