// Package e2e drives the real bot binary against the project's fake GitHub,
// fake model server, real Redis and real git, through CONTRACT.md only.
package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
)

const (
	secret = "e2e-webhook-secret"
	owner  = "acme"
	name   = "calc"
	repo   = owner + "/" + name
	inst   = int64(4242)
)

// world is one end-to-end setup: fakes, a repository, and the running bot.
type world struct {
	t      *testing.T
	gh     *fakegithub.Server
	model  *fakemodel.Server
	bare   string
	bot    *harness.Bot
	nextID int
	db     int               // the Redis database the bot uses
	env    map[string]string // the bot's environment, for more processes
	bin    string
}

type option func(env map[string]string)

// tagsKey in an option's env names the build tags of the bot binary.
const tagsKey = "\x00tags"

func newWorld(t *testing.T, files map[string]string, opts ...option) *world {
	t.Helper()
	if files == nil {
		files = gitfixture.GoModuleWithBug()
	}
	w := &world{t: t, gh: fakegithub.New(), model: fakemodel.New()}
	t.Cleanup(w.gh.Close)
	t.Cleanup(w.model.Close)
	var cloneURL string
	w.bare, cloneURL = gitfixture.NewRepo(t, files)
	w.gh.AddInstallation(inst)
	w.gh.AddRepo(owner, name, cloneURL, "main")
	w.gh.SetPermission(repo, "alice", "write")
	w.gh.SetPermission(repo, "trudy", "triage")
	db := harness.RedisDB(t)
	w.db = db
	env := map[string]string{
		"WARDEN_WEBHOOK_SECRET": secret,
		"WARDEN_APP_ID":         fmt.Sprint(w.gh.AppID()),
		"WARDEN_PRIVATE_KEY":    string(w.gh.PrivateKeyPEM()),
		"WARDEN_GITHUB_API_URL": w.gh.URL() + "/",
		"WARDEN_REDIS_URL":      fmt.Sprintf("redis://%s/%d", harness.RedisAddr(t), db),
		"WARDEN_DATA_DIR":       t.TempDir(),
		"WARDEN_LLM_BASE_URL":   w.model.URL() + "/v1",
		"WARDEN_LLM_API_KEY":    "sk-test-e2e-key-0123456789",
		"WARDEN_LLM_MODEL":      "gpt-test",
		"WARDEN_CONCURRENCY":    "2",
		"WARDEN_LOG_LEVEL":      "debug",
	}
	for _, o := range opts {
		o(env)
	}
	bin := harness.BuildBinaryTags(t, env[tagsKey])
	delete(env, tagsKey)
	w.env, w.bin = env, bin
	w.bot = harness.StartBinary(t, bin, env)
	return w
}

// label delivers issues.labeled for issue n, signed, and returns the HTTP code.
func (w *world) label(n int, title, body, label, sender string) int {
	w.t.Helper()
	w.gh.AddIssue(repo, n, title, body, sender, label)
	w.nextID++
	resp, err := http.DefaultClient.Do(w.labeledRequest(n, fmt.Sprintf("delivery-%d-%d", n, w.nextID), title, body, label, sender))
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// botComments returns the bodies of Warden's own comments on issue n.
// labeledRequest is issue n's signed issues.labeled delivery with the given id.
func (w *world) labeledRequest(n int, id, title, body, label, sender string) *http.Request {
	return harness.LabeledDelivery(w.t, harness.LabeledOptions{
		URL: w.bot.URL() + "/webhooks", Secret: secret, DeliveryID: id, Repo: repo, CloneURL: w.gh.Repo(repo).CloneURL,
		Installation: inst, Issue: n, Title: title, Body: body, Label: label, Sender: sender,
	})
}

func (w *world) botComments(n int) []string {
	var out []string
	for _, c := range w.gh.Comments(repo, n) {
		if c.Author == "warden-test[bot]" {
			out = append(out, c.Body)
		}
	}
	return out
}

func (w *world) commentWith(n int, marker string) string {
	for _, b := range w.botComments(n) {
		if strings.Contains(b, marker) {
			return b
		}
	}
	return ""
}

func (w *world) hasLabel(n int, label string) bool {
	for _, l := range w.gh.Labels(repo, n) {
		if l == label {
			return true
		}
	}
	return false
}

func (w *world) eventually(d time.Duration, cond func() bool, what string) {
	w.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			// The logs as they are now, not as they were when the wait began.
			w.t.Fatalf("after %s: %s\n--- bot logs ---\n%s", d, what, tail(w.bot.Logs(), 6000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
