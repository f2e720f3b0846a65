package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"140.82.112.3", true}, {"2606:4700::1111", true},
		{"127.0.0.1", false}, {"127.9.9.9", false}, {"::1", false}, {"::ffff:127.0.0.1", false},
		{"169.254.169.254", false}, {"fe80::1", false}, {"fd00:ec2::254", false},
		{"10.1.2.3", false}, {"172.16.0.1", false}, {"192.168.1.1", false}, {"fc00::1", false},
		{"100.64.0.1", false}, {"100.127.255.254", false}, {"0.0.0.0", false}, {"::", false},
		{"224.0.0.1", false}, {"ff02::1", false}, {"255.255.255.255", false}, {"240.0.0.1", false},
		{"64:ff9b::a00:1", false}, {"2002:a00:1::1", false}, {"198.18.0.1", false},
		{"::7f00:1", false}, {"::8c52:7003", false}, {"::ffff:140.82.112.3", false}, {"::ffff:0:8c52:7003", false},
		{"fec0::1", false}, {"feff::1", false},
	} {
		if got := Public(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}

func TestReachableRefusesOwnAddresses(t *testing.T) {
	own, err := ownAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range own {
		if err := Reachable(a); err == nil {
			t.Errorf("Reachable(%s) allowed one of the worker's own addresses", a)
		}
	}
}

func TestAllowed(t *testing.T) {
	globs := []string{"pkgs.example.org", "*.Example.net"}
	for host, want := range map[string]bool{
		"pkgs.example.org": true, "PKGS.example.org.": true, "a.example.net": true, "a.b.example.net": true,
		"example.net": false, "pkgs.example.org.evil.com": false, "evil.com": false,
	} {
		if got := Allowed(host, globs); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", host, got, want)
		}
	}
	if !Allowed("anything.org", nil) {
		t.Error("an empty allow-list must allow every host")
	}
}

// fakeResolver answers from a table and counts lookups.
type fakeResolver struct {
	mu    sync.Mutex
	calls int
	names map[string][]netip.Addr
}

func (f *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	a, ok := f.names[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return a, nil
}

// egressServe starts p on a socket and returns a client that talks to it.
func egressServe(t *testing.T, p *Proxy) (*http.Client, *[]Conn) {
	t.Helper()
	var mu sync.Mutex
	var seen []Conn
	p.OnConn = func(c Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }
	return serveProxy(t, p), &seen
}

// serveProxy serves p on a Unix socket for the test and returns a client
// that goes through it.
func serveProxy(t *testing.T, p *Proxy) *http.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "egress.sock")
	stop, err := p.Serve(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	tr := &http.Transport{
		Proxy:       http.ProxyURL(mustURL("http://proxy.invalid")),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return net.Dial("unix", sock) },
	}
	return &http.Client{Transport: tr}
}

// loopbackIsPublic stands in for the internet: the test's server on
// loopback counts as public, nothing else does.
func loopbackIsPublic(a netip.Addr) error {
	if a.IsLoopback() {
		return nil
	}
	return Reachable(a)
}

func TestProxyForwardsToPublicAndLogs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.URL.Path) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	res := &fakeResolver{names: map[string][]netip.Addr{"pkgs.example.org": {netip.MustParseAddr("127.0.0.1")}}}
	client, seen := egressServe(t, &Proxy{Resolver: res, Check: loopbackIsPublic, Allow: []string{"pkgs.example.org"}})
	resp, err := client.Get("http://pkgs.example.org:" + port + "/mod")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello /mod" {
		t.Fatalf("body %q", body)
	}
	if len(*seen) != 1 || (*seen)[0].Verdict != Allow || (*seen)[0].Host != "pkgs.example.org" || (*seen)[0].BytesIn == 0 || (*seen)[0].BytesOut == 0 {
		t.Fatalf("log %+v", *seen)
	}
}

func TestProxyTunnelsConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "echo:"+line)
		c.Close()
	}()
	sock := filepath.Join(t.TempDir(), "e.sock")
	var seen []Conn
	var mu sync.Mutex
	p := &Proxy{Check: loopbackIsPublic, OnConn: func(c Conn) { mu.Lock(); seen = append(seen, c); mu.Unlock() }}
	stop, err := p.Serve(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nping\n", ln.Addr(), ln.Addr())
	all, _ := io.ReadAll(c)
	c.Close()
	stop()
	if !strings.Contains(string(all), " 200 ") || !strings.HasSuffix(string(all), "echo:ping\n") {
		t.Fatalf("reply %q", all)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Verdict != Allow || seen[0].BytesOut != 5 || seen[0].BytesIn != 10 {
		t.Fatalf("log %+v", seen)
	}
}

func TestProxyRefusesWhatIsNotPublic(t *testing.T) {
	own, _ := ownAddrs()
	var ownPublic string
	for _, a := range own {
		if a.Is4() && !a.IsLoopback() {
			ownPublic = a.String()
		}
	}
	res := &fakeResolver{names: map[string][]netip.Addr{
		"metadata.internal": {netip.MustParseAddr("169.254.169.254")},
		"mixed.example.org": {netip.MustParseAddr("140.82.112.3"), netip.MustParseAddr("10.0.0.1")},
		"redis.example.org": {netip.MustParseAddr("::ffff:127.0.0.1")},
	}}
	dialed := make(chan string, 10)
	p := &Proxy{Resolver: res}
	p.dialer = func(_ context.Context, addr string) (net.Conn, error) { dialed <- addr; return nil, fmt.Errorf("no") }
	client, seen := egressServe(t, p)
	targets := []string{"127.0.0.1:6379", "[::1]:6379", "169.254.169.254:80", "metadata.internal:80", "10.0.0.5:80",
		"100.64.1.1:80", "mixed.example.org:443", "redis.example.org:6379"}
	if ownPublic != "" {
		targets = append(targets, ownPublic+":22")
	}
	for _, target := range targets {
		resp, err := client.Get("http://" + target + "/")
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", target, resp.StatusCode)
		}
	}
	select {
	case a := <-dialed:
		t.Fatalf("the proxy dialed %s", a)
	default:
	}
	for _, c := range *seen {
		if c.Verdict != Deny || c.Reason == "" {
			t.Errorf("logged %+v, want denied with a reason", c)
		}
	}
	if len(*seen) != len(targets) {
		t.Errorf("%d connections logged, want %d", len(*seen), len(targets))
	}
}

func TestProxyRefusesHostsOutsideAllowList(t *testing.T) {
	res := &fakeResolver{names: map[string][]netip.Addr{"evil.com": {netip.MustParseAddr("140.82.112.3")}}}
	client, _ := egressServe(t, &Proxy{Resolver: res, Allow: []string{"*.example.net"}})
	resp, err := client.Get("http://evil.com/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || res.calls != 0 {
		t.Fatalf("status %d, %d lookups: want 403 before any lookup", resp.StatusCode, res.calls)
	}
}

// DNS rebinding: the name is resolved once, checked, and exactly that
// address dialed; a second answer (loopback) is never used.
func TestProxyDialsTheAddressItChecked(t *testing.T) {
	pub := netip.MustParseAddr("140.82.112.3")
	res := &rebinding{first: pub, then: netip.MustParseAddr("127.0.0.1")}
	dialed := make(chan string, 10)
	p := &Proxy{Resolver: res, Check: func(a netip.Addr) error {
		if a != pub {
			return fmt.Errorf("not public")
		}
		return nil
	}}
	p.dialer = func(_ context.Context, addr string) (net.Conn, error) {
		dialed <- addr
		return nil, fmt.Errorf("offline")
	}
	client, _ := egressServe(t, p)
	resp, err := client.Get("http://rebind.example.org/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a := <-dialed; a != "140.82.112.3:80" {
		t.Fatalf("dialed %s, want the checked address", a)
	}
	if res.n != 1 {
		t.Fatalf("%d lookups, want 1", res.n)
	}
}

type rebinding struct {
	first, then netip.Addr
	n           int
}

func (r *rebinding) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.n++
	if r.n == 1 {
		return []netip.Addr{r.first}, nil
	}
	return []netip.Addr{r.then}, nil
}

func mustURL(s string) *url.URL { u, _ := url.Parse(s); return u }
