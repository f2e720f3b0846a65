// Package harness is what Warden's end-to-end tests stand on: fixtures,
// signed deliveries, a leased real Redis database, and the real binary.
package harness

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Root is the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// Fixture reads test/fixtures/<name> (real GitHub payloads and error bodies).
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(t), "test", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Sign is GitHub's X-Hub-Signature-256 value for body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// NewDelivery builds a signed webhook request.
func NewDelivery(url, event, id string, body []byte, secret string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("User-Agent", "GitHub-Hookshot/test")
	req.Header.Set("X-Hub-Signature-256", Sign([]byte(secret), body))
	return req
}

// LabeledOptions shape an issues.labeled delivery.
type LabeledOptions struct {
	URL, Secret, DeliveryID string
	Repo, CloneURL          string
	// RepoID is the repository's id as the fake GitHub's API gives it; zero
	// keeps the example's. Warden takes a name whose id changed for another
	// repository and drops what it keeps under the name.
	RepoID                     int64
	Installation               int64
	Issue                      int
	Title, Body, Label, Sender string
	Action                     string // default "labeled"
	// UpdatedAt is the issue's updated_at; zero keeps the example's. Two
	// real labelling events differ there, and Warden takes the same signed
	// body under a new delivery id for a replay (#31).
	UpdatedAt time.Time
}

// LabeledDelivery takes GitHub's issues.labeled example and makes it this
// delivery: real App deliveries carry an installation the example lacks.
func LabeledDelivery(t testing.TB, o LabeledOptions) *http.Request {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(Fixture(t, "webhooks/issues.labeled.json"), &m); err != nil {
		t.Fatal(err)
	}
	owner, name := splitRepo(o.Repo)
	if o.Action == "" {
		o.Action = "labeled"
	}
	m["action"] = o.Action
	m["installation"] = map[string]any{"id": o.Installation, "node_id": "test"}
	m["label"] = map[string]any{"name": o.Label}
	repo := m["repository"].(map[string]any)
	repo["full_name"], repo["name"], repo["clone_url"], repo["default_branch"] = o.Repo, name, o.CloneURL, "main"
	repo["owner"].(map[string]any)["login"] = owner
	if o.RepoID != 0 {
		repo["id"] = o.RepoID
	}
	issue := m["issue"].(map[string]any)
	issue["number"], issue["title"], issue["body"], issue["id"] = o.Issue, o.Title, o.Body, 1000+o.Issue
	issue["labels"] = []any{map[string]any{"name": o.Label}}
	if !o.UpdatedAt.IsZero() {
		issue["updated_at"] = o.UpdatedAt.UTC().Format(time.RFC3339Nano)
	}
	m["sender"].(map[string]any)["login"] = o.Sender
	body, _ := json.Marshal(m)
	return NewDelivery(o.URL, "issues", o.DeliveryID, body, o.Secret)
}

func splitRepo(r string) (string, string) {
	for i := range r {
		if r[i] == '/' {
			return r[:i], r[i+1:]
		}
	}
	return r, r
}

// RedisAddr is the real Redis `make test` provides; without one the test
// fails saying how to get one (never a silent skip).
func RedisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("WARDEN_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("no Redis at %s (%v): run the tests with `make test`, which starts one, or install the redis-server package", addr, err)
	}
	return addr
}

// RedisDB leases a database index 1..15 for this test, exclusive across
// concurrently running test processes, and deletes only Warden's and asynq's
// keys in it, before and after.
func RedisDB(t testing.TB) int {
	t.Helper()
	addr := RedisAddr(t)
	ctx := context.Background()
	lock := redis.NewClient(&redis.Options{Addr: addr})
	deadline := time.Now().Add(60 * time.Second)
	for {
		for n := 1; n < 16; n++ {
			key := fmt.Sprintf("warden-test:db:%d", n)
			if ok, _ := lock.SetNX(ctx, key, os.Getpid(), 10*time.Minute).Result(); ok {
				db := redis.NewClient(&redis.Options{Addr: addr, DB: n})
				clean(ctx, db)
				t.Cleanup(func() {
					clean(ctx, db)
					db.Close()
					lock.Del(ctx, key)
					lock.Close()
				})
				return n
			}
		}
		if time.Now().After(deadline) {
			lock.Close()
			t.Fatal("every Redis test database 1..15 stayed leased for a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func clean(ctx context.Context, c *redis.Client) {
	for _, pattern := range []string{"asynq:*", "warden:*"} {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	}
}

// Eventually polls cond every 20 ms until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
