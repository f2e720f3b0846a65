package egress

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Under an allow-list the CONNECT host is only what the client says; the
// server it reaches through a shared front (a CDN) is chosen by the TLS
// server name (SNI) in the ClientHello. So the proxy reads the ClientHello
// first and refuses a tunnel whose SNI is not the CONNECT host (domain
// fronting), or that does not start with a ClientHello at all (fail closed).

// maxHello bounds what is read of a ClientHello (TLS allows 16 KiB a record,
// and a hello may span a few).
const maxHello = 64 << 10

// helloWait is how long the client has to send its ClientHello.
const helloWait = 10 * time.Second

// errHelloRead stops the handshake once the hello is read.
var errHelloRead = errors.New("client hello read")

// checkHello reads the client's first bytes from r (the tunnel's client side,
// whose deadline the caller set) and returns them, to be sent on, with an
// error wrapping errDenied when their server name is not host.
func checkHello(r io.Reader, host string) ([]byte, error) {
	var raw bytes.Buffer
	var sni string
	seen := false
	cfg := &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		sni, seen = h.ServerName, true
		return nil, errHelloRead
	}}
	_ = tls.Server(helloConn{r: io.TeeReader(io.LimitReader(r, maxHello), &raw)}, cfg).Handshake()
	if !seen {
		return raw.Bytes(), fmt.Errorf("%w: the tunnel to %s does not start with a TLS ClientHello, and an allow-list needs its server name", errDenied, host)
	}
	if !sameName(sni, host) {
		return raw.Bytes(), fmt.Errorf("%w: TLS server name %q is not the CONNECT host %s", errDenied, sni, host)
	}
	return raw.Bytes(), nil
}

// sameName: the SNI names the CONNECT host; an IP literal host has no SNI.
func sameName(sni, host string) bool {
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".") }
	if _, err := netip.ParseAddr(host); err == nil {
		return sni == ""
	}
	return sni != "" && norm(sni) == norm(host)
}

// helloConn is a net.Conn that reads the client's bytes and writes nothing
// (the alert crypto/tls sends when the handshake stops goes nowhere).
type helloConn struct{ r io.Reader }

func (c helloConn) Read(b []byte) (int, error)     { return c.r.Read(b) }
func (helloConn) Write(b []byte) (int, error)      { return 0, io.ErrClosedPipe }
func (helloConn) Close() error                     { return nil }
func (helloConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (helloConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (helloConn) SetDeadline(time.Time) error      { return nil }
func (helloConn) SetReadDeadline(time.Time) error  { return nil }
func (helloConn) SetWriteDeadline(time.Time) error { return nil }
