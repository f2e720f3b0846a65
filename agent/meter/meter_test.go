package meter

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/outcome"
)

func ledger(t *testing.T) *Ledger {
	mr := miniredis.RunT(t)
	return &Ledger{RDB: redis.NewClient(&redis.Options{Addr: mr.Addr()})}
}

func TestLedgerCapsTaskRepoAndInstallation(t *testing.T) {
	ctx := context.Background()
	l := ledger(t)
	l.RepoDaily, l.InstallationDaily = 5, 7
	a := Scope{Repo: "o/a", Issue: 1, Installation: 9, TaskLimit: 1}
	if _, err := l.Charge(ctx, a, 0.6); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(ctx, a); err != nil {
		t.Fatalf("under the cap: %v", err)
	}
	sp, _ := l.Charge(ctx, a, 0.5) // a second attempt of the same task
	if sp.Task < 1.09 || outcome.ClassOf(l.Check(ctx, a)) != outcome.BudgetExhausted {
		t.Fatalf("task over budget_usd across attempts: spent %v, check %v", sp, l.Check(ctx, a))
	}
	b := Scope{Repo: "o/a", Issue: 2, Installation: 9}
	l.Charge(ctx, b, 4)
	if err := l.Check(ctx, b); err == nil || !strings.Contains(err.Error(), "WARDEN_BUDGET_REPO_DAILY_USD") {
		t.Fatalf("repo daily cap: %v", err)
	}
	c := Scope{Repo: "o/c", Issue: 1, Installation: 9}
	l.Charge(ctx, c, 2)
	if err := l.Check(ctx, c); err == nil || !strings.Contains(err.Error(), "INSTALLATION_DAILY") {
		t.Fatalf("installation daily cap: %v", err)
	}
	if err := l.Check(ctx, Scope{Repo: "o/d", Issue: 1, Installation: 10}); err != nil {
		t.Fatalf("another installation is not capped: %v", err)
	}
}

const anthropicSSE = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":1000,\"cache_read_input_tokens\":200,\"output_tokens\":1}}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":300}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

const responsesSSE = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"model\":\"gpt-4.1\"}}\n\n" +
	"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"model\":\"gpt-4.1\",\"usage\":{\"input_tokens\":500,\"output_tokens\":50}}}\n\n"

func TestTapReadsUsageOfEveryShape(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		want              Usage
	}{
		{"anthropic stream", "text/event-stream", anthropicSSE, Usage{"claude-sonnet-4-5", 1200, 300}},
		{"responses stream", "text/event-stream; charset=utf-8", responsesSSE, Usage{"gpt-4.1", 500, 50}},
		{"chat stream", "text/event-stream", "data: {\"model\":\"m\",\"choices\":[]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n", Usage{"m", 7, 3}},
		{"anthropic json", "application/json", `{"model":"claude-haiku-4-5","usage":{"input_tokens":10,"output_tokens":20}}`, Usage{"claude-haiku-4-5", 10, 20}},
		{"chat json", "application/json", `{"model":"gpt-4o","usage":{"prompt_tokens":11,"completion_tokens":22}}`, Usage{"gpt-4o", 11, 22}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got Usage
			tp := newTap(io.NopCloser(&slowReader{s: c.body}), c.ctype, func(u Usage) { got = u })
			out, _ := io.ReadAll(tp)
			tp.Close()
			if string(out) != c.body || got != c.want {
				t.Fatalf("got %+v (body intact %v), want %+v", got, string(out) == c.body, c.want)
			}
		})
	}
}

// slowReader hands out 7 bytes at a time, splitting lines across reads.
type slowReader struct{ s string }

func (r *slowReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], r.s)
	r.s = r.s[n:]
	return n, nil
}

func TestProxyAddsRealKeyMetersAndRefuses(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key")+"|"+r.Header.Get("Authorization")+"|"+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicSSE)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/root")
	l := ledger(t)
	var refused error
	p := &Proxy{Upstream: u, API: "anthropic", APIKey: "REAL-KEY", Ledger: l,
		Scope: Scope{Repo: "o/r", Issue: 3, TaskLimit: 0.0125}, // two calls' maximum, not three
		Price: func(string, int, int) float64 { return 0.006 }, OnRefuse: func(err error) { refused = err }}
	sock := filepath.Join(t.TempDir(), "model.sock")
	stop, err := p.Serve(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	call := func() (int, string) {
		req, _ := http.NewRequest("POST", "http://127.0.0.1:1/v1/messages?beta=true", strings.NewReader(`{}`))
		req.Header.Set("X-Api-Key", "dummy")
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b)
	}
	for i := range 2 {
		if code, body := call(); code != 200 || body != anthropicSSE {
			t.Fatalf("call %d: %d %q", i, code, body)
		}
	}
	code, body := call()
	if code != 400 || !strings.Contains(body, "budget") || outcome.ClassOf(refused) != outcome.BudgetExhausted {
		t.Fatalf("third call over budget: %d %s, refused %v", code, body, refused)
	}
	sp, _ := l.Spent(context.Background(), p.Scope)
	if sp.Task < 0.0119 || sp.Task > 0.0121 {
		t.Fatalf("spent %v, want 0.012", sp.Task)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] != "REAL-KEY||/root/v1/messages" {
		t.Fatalf("upstream saw %q", keys)
	}
	if got := p.SeenKeys(); len(got) != 1 || got[0] != "dummy" {
		t.Fatalf("agent keys %q", got)
	}
}

func TestTodayListsRepoAndInstallationSpend(t *testing.T) {
	ctx := context.Background()
	l := ledger(t)
	l.RepoDaily = 5
	l.Charge(ctx, Scope{Repo: "o/a", Issue: 1, Installation: 9}, 0.25)
	l.Charge(ctx, Scope{Repo: "o/b", Issue: 1, Installation: 9}, 0.5)
	got, err := l.Today(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []DaySpend{{"installation 9", 0.75, 0}, {"repo o/b", 0.5, 5}, {"repo o/a", 0.25, 5}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("today = %+v", got)
	}
}

type fixedCost float64

func (c fixedCost) Chat(context.Context, agent.ChatRequest) (agent.ChatResponse, error) {
	return agent.ChatResponse{Text: "ok", Usage: agent.Usage{CostUSD: float64(c)}}, nil
}

// The llm agent's calls are charged to the task, across sessions (attempts),
// and refused once budget_usd is spent.
func TestProviderChargesTaskAcrossSessions(t *testing.T) {
	l := ledger(t)
	scope := Scope{Repo: "o/r", Issue: 5, Installation: 1, TaskLimit: 1}
	first := &Provider{P: fixedCost(0.7), L: l, Scope: scope}
	if _, err := first.Chat(context.Background(), agent.ChatRequest{Stage: "plan"}); err != nil {
		t.Fatal(err)
	}
	second := &Provider{P: fixedCost(0.7), L: l, Scope: scope} // a retry: a new session
	if _, err := second.Chat(context.Background(), agent.ChatRequest{Stage: "plan"}); err != nil {
		t.Fatal(err)
	}
	_, err := second.Chat(context.Background(), agent.ChatRequest{Stage: "implement"})
	var oe *outcome.Error
	if !errors.As(err, &oe) || oe.Class != outcome.BudgetExhausted || oe.Stage != "implement" || !strings.Contains(oe.Msg, "$1.4000 of $1.00") {
		t.Fatalf("third call: %v", err)
	}
}
