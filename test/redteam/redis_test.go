package redteam

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// Threat-model row "Redis": a task payload is data anyone who can write
// Redis (or forge what lands there) controls. Nothing in it may choose
// where a credential goes: the clone URL it carries names a server of the
// attacker's, and the installation token must never reach it. Clones and
// pushes go to WARDEN_GITHUB_URL/<owner>/<name>.git only.

// redisRecorder is the attacker's git server on loopback: it records every
// request and the credential it carried.
type redisRecorder struct {
	mu   sync.Mutex
	auth []string
	n    int
}

func (r *redisRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.n++
	if a := req.Header.Get("Authorization"); a != "" {
		r.auth = append(r.auth, a)
	}
	r.mu.Unlock()
	w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
	http.Error(w, "denied", http.StatusUnauthorized)
}

func TestRedisForgedCloneURLGetsNoToken(t *testing.T) {
	rec := &redisRecorder{}
	evil := httptest.NewServer(rec)
	defer evil.Close()
	w := world.New(t, nil)
	w.Model.Script(world.HappyScript)
	const n = 31
	w.GH.AddIssue(world.Repo, n, "Add returns the difference", "fix it", "alice", "warden:maintenance")
	resp, err := http.DefaultClient.Do(harness.LabeledDelivery(t, harness.LabeledOptions{
		URL: w.Bot.URL() + "/webhooks", Secret: world.Secret, DeliveryID: "forged-clone-url", Repo: world.Repo,
		CloneURL: evil.URL + "/acme/calc.git", RepoID: w.GH.Repo(world.Repo).ID, Installation: world.Inst, Issue: n,
		Title: "Add returns the difference", Body: "fix it", Label: "warden:maintenance", Sender: "alice",
	}))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := w.OutcomeOf(n, 150*time.Second)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.auth) > 0 {
		t.Fatalf("the installation token went to the payload's clone URL: %q", rec.auth)
	}
	if rec.n > 0 {
		t.Errorf("Warden fetched from the payload's clone URL (%d requests)", rec.n)
	}
	var withToken int
	for _, r := range w.GH.GitRequests() {
		if strings.HasPrefix(r.Authorization, "Basic ") {
			withToken++
		}
	}
	if withToken == 0 {
		t.Errorf("no clone from the configured GitHub URL carried the token (outcome %+v)", got)
	}
}

// The embedded Redis (no WARDEN_REDIS_URL) listens on loopback, where any
// process of the machine connects: it answers nothing without a password
// that only this process knows, and that password is never logged.
func TestRedisEmbeddedAnswersOnlyWarden(t *testing.T) {
	var logs bytes.Buffer
	b, err := jobs.Open("", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.RDB.Set(ctx, "warden:redteam:own", "1", time.Minute).Err(); err != nil {
		t.Fatalf("Warden's own client: %v", err)
	}
	opt, ok := b.Opt.(asynq.RedisClientOpt)
	if !ok {
		t.Fatalf("embedded options %T", b.Opt)
	}
	other := redis.NewClient(&redis.Options{Network: opt.Network, Addr: opt.Addr})
	defer other.Close()
	if err := other.Set(ctx, "warden:redteam:planted", "1", time.Minute).Err(); err == nil {
		t.Fatal("another local process wrote a warden:* key in the embedded Redis")
	}
	if v, err := other.Get(ctx, "warden:redteam:own").Result(); err == nil {
		t.Fatalf("another local process read a warden:* key: %q", v)
	}
	if opt.Password == "" || strings.Contains(logs.String(), opt.Password) {
		t.Fatalf("the embedded Redis has no password, or it was logged:\n%s", logs.String())
	}
}
