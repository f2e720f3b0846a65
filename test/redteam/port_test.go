package redteam

// Threat-model row: "The public port". Anyone on the internet reaches
// /webhooks without the secret. Each test is an unsigned (or wrongly
// signed) caller against the real binary.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/cli/setup"
	"github.com/warden-bot/warden/test/harness"
	tw "github.com/warden-bot/warden/test/world"
)

// portDial opens a raw connection to the bot's public port and writes head
// (a request line and headers, without the body).
func portDial(t *testing.T, w *tw.World, head string) net.Conn {
	t.Helper()
	u, err := url.Parse(w.Bot.URL())
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	return c
}

// portAnswer is the status code the server sends within d without having
// received the body, or 0 when it sends none.
func portAnswer(c net.Conn, d time.Duration) int {
	_ = c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func portHead(extra string, length int) string {
	return fmt.Sprintf("POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-GitHub-Event: issues\r\n"+
		"X-GitHub-Delivery: d-1\r\nContent-Length: %d\r\n%s\r\n", length, extra)
}

// An unsigned request is refused before its body is read: the server
// answers 401 while the (announced 20 MiB) body has not been sent. On
// 326ec27 the handler buffered the body first, so the caller could hold
// 25 MiB of Warden's memory per connection without knowing the secret.
func TestPortUnsignedRefusedBeforeTheBody(t *testing.T) {
	w := tw.New(t, nil)
	c := portDial(t, w, portHead("", 20<<20))
	if code := portAnswer(c, 3*time.Second); code != http.StatusUnauthorized {
		t.Fatalf("unsigned request with an unsent body answered %d, want 401 at once", code)
	}
	c = portDial(t, w, portHead("X-Hub-Signature-256: sha256=nothex\r\n", 20<<20))
	if code := portAnswer(c, 3*time.Second); code != http.StatusUnauthorized {
		t.Fatalf("malformed signature with an unsent body answered %d, want 401 at once", code)
	}
}

// A Content-Length over the cap is refused at once, signature or not.
func TestPortOversizedRefusedAtOnce(t *testing.T) {
	w := tw.New(t, nil)
	sig := "X-Hub-Signature-256: sha256=" + strings.Repeat("ab", 32) + "\r\n"
	c := portDial(t, w, portHead(sig, 26<<20))
	if code := portAnswer(c, 3*time.Second); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("26 MiB Content-Length answered %d, want 413 at once", code)
	}
}

// A connection that never finishes its headers is closed by the server.
func TestPortStalledHeadersAreCut(t *testing.T) {
	w := tw.New(t, nil)
	c := portDial(t, w, "POST /webhooks HTTP/1.1\r\nHost: x\r\n")
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	start := time.Now()
	buf := make([]byte, 1)
	_, err := c.Read(buf)
	if err == nil || time.Since(start) > 15*time.Second {
		t.Fatalf("stalled headers kept the connection for %s (err %v)", time.Since(start), err)
	}
}

// Caller-chosen header values never reach the log whole: the request id is
// Warden's own, the delivery id is capped and filtered, and the client
// address is the connection's, not X-Forwarded-For.
func TestPortCallerHeadersAreNotLoggedWhole(t *testing.T) {
	w := tw.New(t, nil)
	evilID := "rid-" + strings.Repeat("A", 4000)
	evilDelivery := "dlv-" + strings.Repeat("B", 4000)
	req, _ := http.NewRequest(http.MethodPost, w.Bot.URL()+"/webhooks", strings.NewReader(`{}`))
	req.Header.Set("X-Request-ID", evilID)
	req.Header.Set("X-GitHub-Delivery", evilDelivery)
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-Forwarded-For", "203.0.113.99")
	req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("00", 32))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrongly signed request answered %d", resp.StatusCode)
	}
	if got := resp.Header.Get("X-Request-ID"); got == evilID || len(got) > 64 {
		t.Errorf("response echoes the caller's request id (%d bytes)", len(got))
	}
	time.Sleep(300 * time.Millisecond)
	logs := w.Bot.Logs()
	if strings.Contains(logs, strings.Repeat("A", 100)) || strings.Contains(logs, strings.Repeat("B", 100)) {
		t.Error("a caller's 4 KB header value reached the log whole")
	}
	if strings.Contains(logs, "203.0.113.99") {
		t.Error("the log takes the client address from X-Forwarded-For without a trusted proxy")
	}
}

// httpDo sends req and returns its status code.
func httpDo(req *http.Request) (int, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// portStatus sends req and returns its code and its answer's status word.
func portStatus(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var dec struct{ Status string }
	_ = json.NewDecoder(resp.Body).Decode(&dec)
	return resp.StatusCode, dec.Status
}

// A captured signed delivery replayed under a new X-GitHub-Delivery (the id
// is not covered by the signature) is a duplicate: on 326ec27 one
// `/warden resume` ran three times this way.
func TestPortReplayUnderNewDeliveryIDIsDuplicate(t *testing.T) {
	w := tw.New(t, nil)
	w.GH.AddIssue(tw.Repo, 5, "Add returns the difference", "calc.Add(2, 3) returns -1.", "alice", "warden:maintenance")
	if code, st := portStatus(t, w.LabeledRequest(5, "first-id", "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice")); code != http.StatusAccepted {
		t.Fatalf("first delivery answered %d %s", code, st)
	}
	code, st := portStatus(t, w.LabeledRequest(5, "replayed-id", "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice"))
	if st != "duplicate" {
		t.Fatalf("the same signed body under a new delivery id answered %d %q, want duplicate", code, st)
	}
}

// A signed event older than the deduplication window (whose keys may have
// expired) is refused: GitHub's example payload is from 2019.
func TestPortEventOlderThanTheWindowIsRefused(t *testing.T) {
	w := tw.New(t, nil, func(env map[string]string) { env["WARDEN_DELIVERY_TTL"] = "168h" })
	w.GH.AddIssue(tw.Repo, 6, "Add returns the difference", "calc.Add(2, 3) returns -1.", "alice", "warden:maintenance")
	code, st := portStatus(t, w.LabeledRequest(6, "old-id", "Add returns the difference", "calc.Add(2, 3) returns -1.", "warden:maintenance", "alice"))
	if code == http.StatusAccepted || st == "queued" {
		t.Fatalf("a years-old event was queued (%d %q)", code, st)
	}
}

// portCommand delivers a `/warden status` comment by sender on issue n
// (comment id distinct) and returns the answer's status word.
func portCommand(t *testing.T, w *tw.World, n int, id int64, sender string) string {
	t.Helper()
	body := w.Payload("issue_comment.created.json", func(m map[string]any) {
		is := m["issue"].(map[string]any)
		is["number"], is["labels"] = n, []any{}
		delete(is, "pull_request")
		c := m["comment"].(map[string]any)
		c["body"], c["id"] = "/warden status", id
		m["sender"].(map[string]any)["login"] = sender
	})
	_, st := portStatus(t, harness.NewDelivery(w.Bot.URL()+"/webhooks", "issue_comment", fmt.Sprintf("cmd-%d", id), body, tw.Secret))
	return st
}

// A writer demoted to read loses write as soon as GitHub's member event
// arrives (on 326ec27 the permission cache kept write for 30 s and was
// never pruned).
func TestPortDemotedWriterLosesWriteOnMemberEvent(t *testing.T) {
	w := tw.New(t, nil)
	w.GH.AddIssue(tw.Repo, 8, "Add returns the difference", "calc.Add(2, 3) returns -1.", "alice")
	if st := portCommand(t, w, 8, 1, "alice"); st == "refused" {
		t.Fatalf("a writer's command was refused")
	}
	w.GH.SetPermission(tw.Repo, "alice", "read")
	w.Deliver("member", "member.added.json", func(m map[string]any) {
		m["action"] = "edited"
		m["member"].(map[string]any)["login"] = "alice"
	})
	if st := portCommand(t, w, 8, 2, "alice"); st != "refused" {
		t.Fatalf("a demoted writer's command answered %q, want refused", st)
	}
}

// `bot setup`'s page and callback answer only the browser that opened the
// URL printed to the terminal: another local user's client neither sees the
// state nor completes the setup (on 326ec27 the page showed the state to
// any local client, which could then put its own App into .env).
func TestPortSetupCallbackIsBoundToTheBrowser(t *testing.T) {
	env := filepath.Join(t.TempDir(), ".env")
	s, err := setup.Start(setup.Options{GitHubURL: "https://github.com/", APIURL: "http://127.0.0.1:1/", Addr: "127.0.0.1:0", EnvPath: env})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = s.Wait(ctx)
	}()
	resp, err := http.Get(s.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(page), "state=") {
		t.Fatal("the setup page shows the state to a client without the terminal's token")
	}
	resp, err = http.Get(s.URL() + "/callback?code=0123456789abcdef0123&state=" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a callback from another client answered %d, want 403", resp.StatusCode)
	}
	if _, err := os.Stat(env); err == nil {
		t.Error(".env written through another client's callback")
	}
}
