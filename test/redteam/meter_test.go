package redteam

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/warden-bot/warden/agent/meter"
)

// Threat-model row "the metering proxy": an agent CLI (or anything its
// tools run) talks to the model only through Warden's proxy, which holds
// the real key and charges the ledger. The agent is the attacker: it asks
// for compressed replies the ledger cannot read, calls endpoints whose
// replies carry no usage, and fires calls in parallel to pass the cap.

const meterReply = `{"id":"msg_1","type":"message","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":100000,"output_tokens":20000}}`

// meterPrice: $3 per million input tokens, $15 per million output.
func meterPrice(_ string, in, out int) float64 { return float64(in)*3e-6 + float64(out)*15e-6 }

// meterProxy serves a proxy over up on a socket and returns a client for it
// and the ledger's reader.
func meterProxy(t *testing.T, up http.Handler, limit float64) (*http.Client, func() float64, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); up.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	mr := miniredis.RunT(t)
	l := &meter.Ledger{RDB: redis.NewClient(&redis.Options{Addr: mr.Addr()})}
	scope := meter.Scope{Repo: "acme/calc", Issue: 5, Installation: 1, TaskLimit: limit}
	p := &meter.Proxy{Upstream: u, API: "anthropic", APIKey: "sk-ant-real", Ledger: l, Scope: scope, Price: meterPrice}
	sock := filepath.Join(t.TempDir(), "model.sock")
	stop, err := p.Serve(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	c := &http.Client{Transport: &http.Transport{
		DisableCompression: true, // the attacker decompresses for itself
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	spent := func() float64 {
		sp, err := l.Spent(context.Background(), scope)
		if err != nil {
			t.Fatal(err)
		}
		return sp.Task
	}
	return c, spent, &hits
}

func meterCall(t *testing.T, c *http.Client, method, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	// 300 KB of prompt: the 100,000 input tokens the reply reports.
	body := `{"model":"claude-sonnet-4-5","max_tokens":20000,"messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 25000) + `"}]}`
	req, _ := http.NewRequest(method, "http://127.0.0.1:1"+path, strings.NewReader(body))
	req.Header.Set("X-Api-Key", "dummy")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b
}

func meterGzip(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// An upstream that compresses when asked (as the real APIs do) and one that
// always compresses: either way the call is charged, never $0.
func TestMeterCompressedReplyIsCharged(t *testing.T) {
	const real = 100000*3e-6 + 20000*15e-6
	for _, always := range []bool{false, true} {
		up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if always || strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(meterGzip(meterReply))
				return
			}
			io.WriteString(w, meterReply)
		})
		c, spent, _ := meterProxy(t, up, 0)
		res, _ := meterCall(t, c, "POST", "/v1/messages", map[string]string{"Accept-Encoding": "gzip"})
		if res.StatusCode != 200 {
			t.Fatalf("status %d", res.StatusCode)
		}
		time.Sleep(50 * time.Millisecond) // the charge lands when the body is done
		if got := spent(); got < real-1e-9 {
			t.Fatalf("always-compressing upstream %v: a reply worth $%.2f was charged $%.4f", always, real, got)
		}
	}
}

// Paths that are not generation calls never reach the upstream with the key.
func TestMeterOtherPathsRefused(t *testing.T) {
	c, spent, hits := meterProxy(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"data":[]}`) }), 0)
	for _, call := range [][2]string{{"GET", "/v1/models"}, {"POST", "/v1/files"}, {"POST", "/v1/messages/count_tokens"},
		{"POST", "/v1/messages/batches"}, {"GET", "/v1/messages"}, {"POST", "/v1/complete"}} {
		res, _ := meterCall(t, c, call[0], call[1], nil)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s: status %d, want 403", call[0], call[1], res.StatusCode)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d calls reached the upstream with the real key", n)
	}
	if s := spent(); s != 0 {
		t.Fatalf("refused calls left $%v on the ledger", s)
	}
}

// Twenty calls at once against a cap that holds two: the ledger never ends
// past the cap.
func TestMeterParallelCallsStopAtCap(t *testing.T) {
	const per = 100000*3e-6 + 20000*15e-6 // $0.60; a call's maximum is about the same
	release := make(chan struct{})
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // every call is in flight before any is charged
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, meterReply)
	})
	c, spent, hits := meterProxy(t, up, 1.5)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _ := meterCall(t, c, "POST", "/v1/messages", nil)
			if res.StatusCode == 200 {
				ok.Add(1)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	close(release)
	wg.Wait()
	time.Sleep(50 * time.Millisecond)
	if got := spent(); got > 1.5+1e-9 {
		t.Fatalf("%d parallel calls answered (%d reached the upstream): $%.2f spent past the $1.50 cap (each $%.2f)", ok.Load(), hits.Load(), got, per)
	}
	if ok.Load() == 0 {
		t.Fatal("no call went through under the cap")
	}
}
