package image

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/warden-bot/warden/sandbox/egress"
)

// RegistriesEnv names the operator's registry list (CONTRACT §13).
const RegistriesEnv = "WARDEN_IMAGE_REGISTRIES"

// SplitRegistries parses WARDEN_IMAGE_REGISTRIES: comma-separated
// host[:port], each as a reference would spell its registry (docker.io is
// index.docker.io).
func SplitRegistries(s string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		r, err := name.NewRegistry(h, name.StrictValidation)
		if err != nil || strings.ContainsAny(h, "/@") {
			return nil, fmt.Errorf("%s: %q is not a registry host[:port]", RegistriesEnv, h)
		}
		out = append(out, strings.ToLower(r.RegistryStr()))
	}
	return out, nil
}

// named reports whether the operator named registry (host[:port]).
func (s *Store) named(registry string) bool {
	registry = strings.ToLower(registry)
	for _, r := range s.Registries {
		if strings.ToLower(r) == registry {
			return true
		}
	}
	return false
}

// keychain is the Docker credentials for a registry the operator named,
// and none for any other: a repository naming an image must not borrow the
// worker's access to private ones.
func (s *Store) keychain(registry string) authn.Keychain {
	if !s.named(registry) {
		return authn.NewMultiKeychain() // anonymous
	}
	if s.Keychain != nil {
		return s.Keychain
	}
	return authn.DefaultKeychain // ~/.docker/config.json and credential helpers
}

// dialGuard is one pull's dialer: every connection the registry client
// opens (the registry, its token service, a redirect's CDN, a foreign
// layer's URL) goes to a public address, checked after resolution and
// dialled as checked, unless its host is a registry the operator named.
type dialGuard struct {
	s       *Store
	bytesIn atomic.Int64
	mu      sync.Mutex
	refused error
}

func (g *dialGuard) transport() *http.Transport {
	return &http.Transport{DialContext: g.dial, ForceAttemptHTTP2: true, TLSHandshakeTimeout: 30 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute, MaxIdleConnsPerHost: 4}
}

func (g *dialGuard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	if g.exempt(host, port) {
		return g.count(d.DialContext(ctx, network, addr))
	}
	ip, err := g.checked(ctx, host)
	if err != nil {
		g.refuse(err)
		return nil, err
	}
	return g.count(d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port)))
}

// exempt: the operator named host:port, or host alone and this is its
// HTTPS or HTTP port.
func (g *dialGuard) exempt(host, port string) bool {
	if g.s.named(net.JoinHostPort(host, port)) || (strings.Contains(host, ":") && g.s.named("["+host+"]:"+port)) {
		return true
	}
	return (port == "443" || port == "80") && g.s.named(host)
}

// checked resolves host and returns its first address the policy allows.
func (g *dialGuard) checked(ctx context.Context, host string) (netip.Addr, error) {
	check := g.s.Check
	if check == nil {
		check = egress.Reachable
	}
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		var r egress.Resolver = net.DefaultResolver
		if g.s.Resolver != nil {
			r = g.s.Resolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return netip.Addr{}, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	var last error
	for _, a := range addrs {
		if last = check(a); last == nil {
			return a.Unmap(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("registry host %s: %v; only a registry named in %s may be at a private or loopback address", host, last, RegistriesEnv)
}

func (g *dialGuard) count(c net.Conn, err error) (net.Conn, error) {
	if err != nil {
		return nil, err
	}
	return &countConn{Conn: c, in: &g.bytesIn}, nil
}

func (g *dialGuard) refuse(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		g.refused = err
	}
}

// refusal is the first connection the policy refused, wrapped as
// ErrRefused: whatever the registry client made of it, the pull was refused.
func (g *dialGuard) refusal() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrRefused, g.refused)
}

type countConn struct {
	net.Conn
	in *atomic.Int64
}

func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in.Add(int64(n))
	return n, err
}
