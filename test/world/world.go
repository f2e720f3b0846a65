// Package world is one end-to-end setup shared by the e2e and chaos tests:
// the fake GitHub, the fake model server, a real git repository, a leased
// real Redis database and the real bot binary, driven through CONTRACT.md.
package world

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
)

// The installation and repository every world serves.
const (
	Secret = "e2e-webhook-secret"
	Owner  = "acme"
	Name   = "calc"
	Repo   = Owner + "/" + Name
	Inst   = int64(4242)
)

// World is one end-to-end setup: fakes, a repository, and the running bot.
type World struct {
	T      testing.TB
	GH     *fakegithub.Server
	Model  *fakemodel.Server
	Bare   string
	Bot    *harness.Bot
	NextID int
	DB     int               // the Redis database the bot uses
	Env    map[string]string // the bot's environment, for more processes
	Bin    string
	sent   map[[32]byte]bool // bodies Deliver sent: a repeat is made another event
}

// Option changes the bot's environment before it starts.
type Option func(env map[string]string)

// TagsKey in an Option's env names the build tags of the bot binary.
const TagsKey = "\x00tags"

// New starts a world on files (the calc module when nil): alice may write,
// trudy may only triage.
func New(t testing.TB, files map[string]string, opts ...Option) *World {
	t.Helper()
	if files == nil {
		files = CalcRepo()
	}
	w := &World{T: t, GH: fakegithub.New(), Model: fakemodel.New()}
	t.Cleanup(w.GH.Close)
	t.Cleanup(w.Model.Close)
	var cloneURL string
	w.Bare, cloneURL = gitfixture.NewRepo(t, files)
	w.GH.AddInstallation(Inst)
	w.GH.AddRepo(Owner, Name, cloneURL, "main")
	w.GH.SetPermission(Repo, "alice", "write")
	w.GH.SetPermission(Repo, "trudy", "triage")
	w.DB = harness.RedisDB(t)
	env := map[string]string{
		"WARDEN_WEBHOOK_SECRET": Secret,
		"WARDEN_APP_ID":         fmt.Sprint(w.GH.AppID()),
		"WARDEN_PRIVATE_KEY":    string(w.GH.PrivateKeyPEM()),
		"WARDEN_GITHUB_API_URL": w.GH.URL() + "/",
		"WARDEN_GITHUB_URL":     w.GH.GitURL(), // clones and pushes go over HTTP, as to github.com
		"WARDEN_REDIS_URL":      fmt.Sprintf("redis://%s/%d", harness.RedisAddr(t), w.DB),
		"WARDEN_DATA_DIR":       t.TempDir(),
		"WARDEN_LLM_BASE_URL":   w.Model.URL() + "/v1",
		"WARDEN_LLM_API_KEY":    "sk-test-e2e-key-0123456789",
		"WARDEN_LLM_MODEL":      "gpt-test",
		"WARDEN_CONCURRENCY":    "2",
		"WARDEN_LOG_LEVEL":      "debug",
	}
	for _, o := range opts {
		o(env)
	}
	bin := harness.BuildBinaryTags(t, env[TagsKey])
	delete(env, TagsKey)
	w.Env, w.Bin = env, bin
	w.Bot = harness.StartBinary(t, bin, env)
	if dir := os.Getenv("WORLD_LOGS"); dir != "" {
		// The failure message holds the logs' tail only; a flaky failure in
		// CI needs all of them.
		t.Cleanup(func() {
			if t.Failed() {
				name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
				_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano())), []byte(w.Bot.Logs()), 0o644)
			}
		})
	}
	return w
}

// Chaos runs the bot built with -tags chaos, with WARDEN_CHAOS set.
func Chaos(spec string) Option {
	return func(env map[string]string) {
		env[TagsKey] = "chaos"
		env["WARDEN_CHAOS"] = spec
	}
}

// Label delivers issues.labeled for issue n, signed, and returns the HTTP code.
func (w *World) Label(n int, title, body, label, sender string) int {
	w.T.Helper()
	w.GH.AddIssue(Repo, n, title, body, sender, label)
	w.NextID++
	req := harness.LabeledDelivery(w.T, harness.LabeledOptions{
		URL: w.Bot.URL() + "/webhooks", Secret: Secret, DeliveryID: fmt.Sprintf("delivery-%d-%d", n, w.NextID), Repo: Repo,
		CloneURL: w.GH.Repo(Repo).CloneURL, RepoID: w.GH.Repo(Repo).ID, Installation: Inst, Issue: n, Title: title, Body: body, Label: label, Sender: sender,
		UpdatedAt: time.Now().Add(time.Duration(w.NextID) * time.Millisecond), // each Label is another event
	})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// LabeledRequest is issue n's signed issues.labeled delivery with the given id.
func (w *World) LabeledRequest(n int, id, title, body, label, sender string) *http.Request {
	return harness.LabeledDelivery(w.T, harness.LabeledOptions{
		URL: w.Bot.URL() + "/webhooks", Secret: Secret, DeliveryID: id, Repo: Repo, CloneURL: w.GH.Repo(Repo).CloneURL,
		RepoID: w.GH.Repo(Repo).ID, Installation: Inst, Issue: n, Title: title, Body: body, Label: label, Sender: sender,
	})
}

// BotComments returns the bodies of Warden's own comments on issue n.
func (w *World) BotComments(n int) []string {
	var out []string
	for _, c := range w.GH.Comments(Repo, n) {
		if c.Author == "warden-test[bot]" {
			out = append(out, c.Body)
		}
	}
	return out
}

// CommentWith is Warden's first comment on issue n holding marker, or "".
func (w *World) CommentWith(n int, marker string) string {
	for _, b := range w.BotComments(n) {
		if strings.Contains(b, marker) {
			return b
		}
	}
	return ""
}

// HasLabel reports whether issue n carries label now.
func (w *World) HasLabel(n int, label string) bool {
	for _, l := range w.GH.Labels(Repo, n) {
		if l == label {
			return true
		}
	}
	return false
}

// Eventually polls cond until it holds or d passes, then fails with the bot's logs.
func (w *World) Eventually(d time.Duration, cond func() bool, what string) {
	w.T.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			// The logs as they are now, not as they were when the wait began.
			w.T.Fatalf("after %s: %s\n--- bot logs ---\n%s", d, what, Tail(w.Bot.Logs(), 6000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Tail is the last n bytes of s.
func Tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
