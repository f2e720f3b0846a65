package egress

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An operator's package mirror at a loopback or private address is
// reached, even outside the allow-list, at exactly the host:port named;
// another port of the same host stays refused.
func TestProxyReachesTheMirrorsTheOperatorNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "index "+r.URL.Path) }))
	defer srv.Close()
	hostport := strings.TrimPrefix(srv.URL, "http://")
	host, _, _ := net.SplitHostPort(hostport)
	client, seen := egressServe(t, &Proxy{Allow: []string{"*.example.net"}, Mirrors: []string{hostport}})
	resp, err := client.Get(srv.URL + "/simple/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "index /simple/" {
		t.Fatalf("status %d body %q: the named mirror was not reached", resp.StatusCode, body)
	}
	resp, err = client.Get("http://" + net.JoinHostPort(host, "6379") + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another port of the mirror's host: status %d, want 403", resp.StatusCode)
	}
	if len(*seen) != 2 || (*seen)[0].Verdict != Allow || (*seen)[1].Verdict != Deny {
		t.Fatalf("log %+v", *seen)
	}
}
