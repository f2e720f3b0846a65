package sandbox

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/warden-bot/warden/sandbox/egress"
)

// A sandbox with network reaches a "public" server (here the test's
// loopback stands in for the internet) only through the egress proxy, and
// every connection is reported; the real check refuses the same server.
func TestNetworkGoesThroughEgressProxy(t *testing.T) {
	// 127.0.0.2: not in the sandbox's NO_PROXY, so curl asks the proxy.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "REACHED") }))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	line := "curl -sS --max-time 5 http://127.0.0.2:" + port + "/ 2>&1 || " +
		"printf 'GET http://127.0.0.2:" + port + "/ HTTP/1.0\\r\\n\\r\\n' | socat -t5 - TCP:127.0.0.1:" + itoa(egressPort)
	var mu sync.Mutex
	var seen []egress.Conn
	profile := func() Profile {
		return Profile{Argv: []string{"sh", "-c", line}, Tree: Tree{Dir: t.TempDir()}, Network: Egress,
			Egress: EgressPolicy{OnConn: func(c egress.Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }}}
	}

	_, out := try(t, profile())
	if strings.Contains(out, "REACHED") {
		t.Fatalf("the proxy let a sandbox reach the worker's loopback:\n%s", out)
	}
	mu.Lock()
	if len(seen) != 1 || seen[0].Verdict != egress.Deny || seen[0].Port != atoi(t, port) {
		t.Fatalf("connections logged %+v, want one denied", seen)
	}
	seen = nil
	mu.Unlock()

	egressCheck = func(a netip.Addr) error {
		if a.IsLoopback() {
			return nil
		}
		return egress.Reachable(a)
	}
	defer func() { egressCheck = nil }()
	_, out = try(t, profile())
	if !strings.Contains(out, "REACHED") {
		t.Fatalf("a sandbox with network did not reach a public server through the proxy:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Verdict != egress.Allow || seen[0].BytesIn == 0 {
		t.Fatalf("connections logged %+v, want one allowed with bytes", seen)
	}
}

// The allow-list from the environment and the spec both narrow the way out.
func TestEgressAllowListFromEnv(t *testing.T) {
	t.Setenv(EgressAllowEnv, "pkgs.example.org")
	var mu sync.Mutex
	var seen []egress.Conn
	line := "printf 'GET http://evil.example.com/ HTTP/1.0\\r\\n\\r\\n' | socat -t5 - TCP:127.0.0.1:" + itoa(egressPort)
	_, out := try(t, Profile{Argv: []string{"sh", "-c", line}, Tree: Tree{Dir: t.TempDir()}, Network: Egress,
		Egress: EgressPolicy{Allow: []string{"*.example.net"}, OnConn: func(c egress.Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }}})
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(out, "403") || len(seen) != 1 || !strings.Contains(seen[0].Reason, "allow-list") {
		t.Fatalf("output %q, log %+v: want a refusal for the allow-list", out, seen)
	}
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
