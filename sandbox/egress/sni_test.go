package egress

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// Under an allow-list a CONNECT tunnel carries TLS whose server name is the
// CONNECT host: another name (domain fronting) or no ClientHello at all is
// refused and recorded; the honest tunnel works.
func TestProxyChecksTLSServerNameUnderAllowList(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := &fakeResolver{names: map[string][]netip.Addr{"pkgs.example.org": {netip.MustParseAddr("127.0.0.1")}}}
	client, conns := egressServeSync(t, &Proxy{Resolver: res, Check: loopbackIsPublic, Allow: []string{"pkgs.example.org"}})
	tr := client.Transport.(*http.Transport)
	get := func(sni string) (string, error) {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, ServerName: sni}
		tr.CloseIdleConnections()
		resp, err := client.Get("https://pkgs.example.org:" + port + "/")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	if body, err := get("pkgs.example.org"); err != nil || body != "served" {
		t.Fatalf("the honest tunnel: %q %v", body, err)
	}
	if body, err := get("fronted.example.com"); err == nil {
		t.Fatalf("a tunnel to pkgs.example.org spoke TLS for fronted.example.com: %q", body)
	}
	last := conns.wait(t, func(c Conn) bool { return c.Verdict == Deny && strings.Contains(c.Reason, "fronted") })
	if last.Verdict != Deny || !strings.Contains(last.Reason, `"fronted.example.com"`) {
		t.Fatalf("the fronted tunnel was recorded as %+v", last)
	}
	// Not TLS at all: no server name to check, refused.
	c, err := tr.DialContext(t.Context(), "tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT pkgs.example.org:%s HTTP/1.1\r\nHost: pkgs.example.org\r\n\r\nGET / HTTP/1.0\r\n\r\n", port)
	all, _ := io.ReadAll(c)
	if strings.Contains(string(all), "served") {
		t.Fatalf("a plain tunnel under an allow-list reached the server: %q", all)
	}
	if last := conns.wait(t, func(c Conn) bool { return strings.Contains(c.Reason, "ClientHello") }); last.Verdict != Deny {
		t.Fatalf("the plain tunnel was recorded as %+v", last)
	}
}

// seenConns are the connections a proxy reported; a tunnel is reported
// when it ends, after its client saw the end, so tests wait for it.
type seenConns struct {
	mu  sync.Mutex
	all []Conn
}

// wait returns the newest reported connection that matches, once one
// does. Tunnels are reported when they end, in no set order (the honest
// tunnel of a test may end after a later refused one), so any reported
// connection may match, not only the last. The bound only turns a missing
// report into a failure message.
func (s *seenConns) wait(t *testing.T, match func(Conn) bool) Conn {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		all := append([]Conn(nil), s.all...)
		s.mu.Unlock()
		for i := len(all) - 1; i >= 0; i-- {
			if match(all[i]) {
				return all[i]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no matching connection reported: %+v", all)
			return Conn{}
		}
	}
}

// egressServeSync is egressServe whose reports are read under a lock.
func egressServeSync(t *testing.T, p *Proxy) (*http.Client, *seenConns) {
	t.Helper()
	s := &seenConns{}
	p.OnConn = func(c Conn) { s.mu.Lock(); s.all = append(s.all, c); s.mu.Unlock() }
	return serveProxy(t, p), s
}
