package egress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Conn is one connection a sandbox asked for, as it is logged: on the
// task's record and in `bot observe`.
type Conn struct {
	Time     time.Time `json:"time"`
	Host     string    `json:"host"`
	Port     int       `json:"port"`
	IP       string    `json:"ip,omitempty"`
	Method   string    `json:"method"`  // CONNECT, or the plain HTTP request's method
	Verdict  string    `json:"verdict"` // allowed or denied
	Reason   string    `json:"reason,omitempty"`
	BytesOut int64     `json:"bytes_out"` // sandbox to server
	BytesIn  int64     `json:"bytes_in"`  // server to sandbox
}

// Verdicts.
const (
	Allow = "allowed"
	Deny  = "denied" // the policy refused it
	Fail  = "failed" // allowed, but the server could not be reached
)

// Resolver looks names up (net.DefaultResolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Proxy is one sandbox's egress proxy. The zero value plus Serve works:
// public addresses only, any host, the system resolver.
type Proxy struct {
	Allow []string // host globs; empty allows every host
	// Mirrors are the operator's package mirrors as host:port: reached
	// outside Allow and at any address, since the operator named exactly
	// them (as WARDEN_IMAGE_REGISTRIES names a registry).
	Mirrors  []string
	Resolver Resolver               // nil: net.DefaultResolver
	Check    func(netip.Addr) error // nil: Reachable
	OnConn   func(Conn)             // told of every connection when it ends; may be nil
	Log      *slog.Logger           // nil: slog.Default()
	Timeout  time.Duration          // dial timeout; default 15 s
	dialer   func(ctx context.Context, addr string) (net.Conn, error)
	wg       sync.WaitGroup
	closedMu sync.Mutex
	conns    map[net.Conn]struct{}
}

// Serve listens on the Unix socket sock until stop is called or ctx ends.
// stop closes the listener and every tunnel still open.
func (p *Proxy) Serve(ctx context.Context, sock string) (stop func(), err error) {
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on %s: %w", sock, err)
	}
	// The sandbox runs as the same user; nobody else needs the socket.
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() { _ = srv.Serve(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = srv.Close() // closes the listener and idle connections, not hijacked ones
			p.closeTunnels()
			p.wg.Wait()
		})
	}
	go func() { <-ctx.Done(); stop() }()
	return stop, nil
}

// ServeHTTP handles CONNECT tunnels and absolute-form plain HTTP requests;
// anything else is refused.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.wg.Add(1)
	defer p.wg.Done()
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "warden egress proxy: only http:// requests and CONNECT are forwarded", http.StatusBadRequest)
		return
	}
	p.forward(w, r)
}

// dial resolves host, checks every address it resolves to, and connects to
// one that passed: the connection goes to exactly the address checked.
func (p *Proxy) dial(ctx context.Context, host string, port int) (net.Conn, string, error) {
	if port <= 0 || port > 65535 {
		return nil, "", fmt.Errorf("%w: bad port %d", errDenied, port)
	}
	mirror := slices.Contains(p.Mirrors, net.JoinHostPort(host, strconv.Itoa(port)))
	if !mirror && !Allowed(host, p.Allow) {
		return nil, "", fmt.Errorf("%w: host %s is not in the allow-list", errDenied, host)
	}
	ips, err := p.resolve(ctx, host)
	if err != nil {
		return nil, "", err
	}
	for _, ip := range ips {
		// One address outside the public internet condemns the name: a
		// name that mixes both is an attack, not a mirror.
		if err := p.check(ip); err != nil && !mirror {
			return nil, ip.String(), fmt.Errorf("%w: %w", errDenied, err)
		}
	}
	var last error
	for _, ip := range ips {
		addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
		c, err := p.connect(ctx, addr)
		if err == nil {
			return c, ip.String(), nil
		}
		last = err
	}
	return nil, ips[0].String(), fmt.Errorf("connect: %w", last)
}

func (p *Proxy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%w: resolve %s: no address", errDenied, host)
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}

func (p *Proxy) check(ip netip.Addr) error {
	if p.Check != nil {
		return p.Check(ip)
	}
	return Reachable(ip)
}

func (p *Proxy) connect(ctx context.Context, addr string) (net.Conn, error) {
	if p.dialer != nil {
		return p.dialer(ctx, addr)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	d := net.Dialer{Timeout: timeout}
	return d.DialContext(ctx, "tcp", addr)
}

// report logs c and hands it to OnConn.
func (p *Proxy) report(c Conn) {
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	level := slog.LevelInfo
	if c.Verdict == Deny {
		level = slog.LevelWarn
	}
	log.Log(context.Background(), level, "sandbox egress", "host", c.Host, "port", c.Port, "ip", c.IP, "method", c.Method,
		"verdict", c.Verdict, "reason", c.Reason, "bytes_out", c.BytesOut, "bytes_in", c.BytesIn)
	if p.OnConn != nil {
		p.OnConn(c)
	}
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.closedMu.Lock()
	defer p.closedMu.Unlock()
	if p.conns == nil {
		p.conns = map[net.Conn]struct{}{}
	}
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
}

func (p *Proxy) closeTunnels() {
	p.closedMu.Lock()
	defer p.closedMu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

// errDenied marks a refusal of policy, as opposed to a server that did not
// answer (the verdict "failed").
var errDenied = errors.New("denied")
