package sandbox

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/warden-bot/warden/sandbox/egress"
)

// EgressAllowEnv names the operator's host allow-list (CONTRACT §12): host
// globs every sandbox with network may reach; unset, any public address.
const EgressAllowEnv = "WARDEN_EGRESS_ALLOW"

// EgressPolicy is what a Network: Egress process may reach. The sandbox
// never shares the worker's network: it keeps its own namespace, with only
// loopback, where Warden's helper (forward.go) hands the proxy port to
// Warden's egress proxy (package egress) over a Unix socket bound in.
type EgressPolicy struct {
	// Allow are host globs the command may reach, on top of
	// WARDEN_EGRESS_ALLOW; both empty, any public address.
	Allow []string
	// Mirrors are the operator's package mirrors (host:port), reachable
	// at any address: see egress.Proxy.Mirrors.
	Mirrors []string
	// OnConn is told of every connection (host, port, bytes, verdict).
	OnConn func(egress.Conn)
}

// operatorAllow is WARDEN_EGRESS_ALLOW as the configuration read it
// (SetEgressAllow); unset, the environment is read.
var operatorAllow atomic.Pointer[[]string]

// SetEgressAllow sets the operator's host allow-list (WARDEN_EGRESS_ALLOW,
// --egress-allow) for every sandbox with network.
func SetEgressAllow(globs []string) { operatorAllow.Store(&globs) }

func egressAllow() []string {
	if p := operatorAllow.Load(); p != nil {
		return *p
	}
	return egress.SplitAllow(os.Getenv(EgressAllowEnv))
}

// egressPort is where the proxy answers inside the sandbox's own network
// namespace; nothing else listens there.
const egressPort = 39128

// egressCheck replaces the address check in this package's tests, which
// treat loopback as "the internet"; nil is egress.Reachable.
var egressCheck func(netip.Addr) error

// withEgress starts s's egress proxy and returns s wrapped to reach it:
// the socket bound in, forwarded to egressPort, the proxy variables set.
// stop ends the proxy and removes its socket.
func withEgress(ctx context.Context, s spec) (spec, func(), error) {
	dir, err := os.MkdirTemp("", "warden-egress-")
	if err != nil {
		return s, nil, fmt.Errorf("egress proxy directory: %w", err)
	}
	sock := filepath.Join(dir, "egress.sock")
	allow := append(egressAllow(), s.egress.Allow...)
	p := &egress.Proxy{Allow: allow, Mirrors: s.egress.Mirrors, Check: egressCheck, OnConn: s.egress.OnConn}
	stopProxy, err := p.Serve(ctx, sock)
	if err != nil {
		os.RemoveAll(dir)
		return s, nil, err
	}
	stop := func() { stopProxy(); os.RemoveAll(dir) }
	url := "http://127.0.0.1:" + strconv.Itoa(egressPort)
	s.sockets = append(append([]string(nil), s.sockets...), sock)
	s.forward = append(append([]Forward(nil), s.forward...), Forward{Port: egressPort, Socket: sock})
	// The sandbox's loopback is its own: a test's server there is not the host's.
	noProxy := "localhost,127.0.0.1,::1"
	s.env = append(append([]string(nil), s.env...),
		"HTTP_PROXY="+url, "HTTPS_PROXY="+url, "http_proxy="+url, "https_proxy="+url, "ALL_PROXY="+url, "all_proxy="+url,
		"NO_PROXY="+noProxy, "no_proxy="+noProxy)
	return s, stop, nil
}
