package redteam

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/sandbox/egress"
)

// IPv6 spellings of IPv4 and the deprecated site-local range are not the
// public internet: a private or loopback IPv4 address hides in ::/96
// (IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped), and fec0::/10 is a
// site's own.
func TestEgressPublicRefusesIPv4InIPv6AndSiteLocal(t *testing.T) {
	for _, ip := range []string{"::7f00:1", "::a00:1", "::8c52:7003", "::ffff:140.82.112.3", "::ffff:0:8c52:7003", "fec0::1", "feff::1"} {
		if egress.Public(netip.MustParseAddr(ip)) {
			t.Errorf("egress.Public(%s) = true", ip)
		}
	}
	if !egress.Public(netip.MustParseAddr("2606:4700::1111")) {
		t.Error("a public IPv6 address is refused")
	}
}

// egressFrontRig is a proxy that allows only allowed.example, which
// resolves to a TLS server on loopback (standing in for a CDN front that
// would serve any name).
func egressFrontRig(t *testing.T) (proxyAddr string, seen func() []egress.Conn, names func() []string) {
	t.Helper()
	var mu sync.Mutex
	var conns []egress.Conn
	var sni []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "FRONTED") }))
	srv.TLS = &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		sni = append(sni, h.ServerName)
		mu.Unlock()
		return nil, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p := &egress.Proxy{Allow: []string{"allowed.example"}, Resolver: egressFixedResolver{},
		Check:  func(a netip.Addr) error { return nil },
		OnConn: func(c egress.Conn) { mu.Lock(); conns = append(conns, c); mu.Unlock() }}
	sock := filepath.Join(t.TempDir(), "egress.sock")
	stop, err := p.Serve(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return sock + "|" + port, func() []egress.Conn { mu.Lock(); defer mu.Unlock(); return append([]egress.Conn(nil), conns...) },
		func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), sni...) }
}

type egressFixedResolver struct{}

func (egressFixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// egressConnect opens a CONNECT tunnel to host:port through the proxy's
// socket and speaks TLS naming sni in it; it returns what came back.
func egressConnect(t *testing.T, rig, host, sni string) (string, error) {
	sock, port, _ := strings.Cut(rig, "|")
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", host, port, host, port)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("CONNECT answered %s", resp.Status)
	}
	tc := tls.Client(&egressBuffered{Conn: c, r: br}, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	if err := tc.Handshake(); err != nil {
		return "", err
	}
	fmt.Fprintf(tc, "GET / HTTP/1.0\r\nHost: %s\r\n\r\n", sni)
	b := make([]byte, 4096)
	n, _ := tc.Read(b)
	return string(b[:n]), nil
}

type egressBuffered struct {
	net.Conn
	r *bufio.Reader
}

func (b *egressBuffered) Read(p []byte) (int, error) { return b.r.Read(p) }

// Domain fronting: CONNECT names the allowed host, the TLS ClientHello
// names another; the tunnel is refused before the server hears that name,
// and the refusal is recorded. The honest tunnel still works.
func TestEgressDomainFrontingRefused(t *testing.T) {
	rig, seen, names := egressFrontRig(t)
	if _, err := egressConnect(t, rig, "allowed.example", "allowed.example"); err != nil {
		t.Fatalf("the allowed host's own tunnel failed: %v", err)
	}
	got, err := egressConnect(t, rig, "allowed.example", "forbidden.example")
	for _, n := range names() {
		if n == "forbidden.example" {
			t.Fatalf("the front was asked for forbidden.example through a tunnel to allowed.example (reply %q, err %v)", got, err)
		}
	}
	var denied bool
	for _, c := range seen() {
		if c.Verdict == egress.Deny && strings.Contains(c.Reason, "forbidden.example") {
			denied = true
		}
	}
	if !denied {
		t.Fatalf("the fronted tunnel is not recorded as denied: %+v", seen())
	}
}
