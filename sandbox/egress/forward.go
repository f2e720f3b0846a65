package egress

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// tunnel answers CONNECT host:port: it dials the checked address, says 200,
// under an allow-list checks the TLS server name (sni.go), and copies bytes
// both ways until either side closes.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port := splitHostPort(r.Host, 0)
	c := Conn{Time: time.Now().UTC(), Host: host, Port: port, Method: http.MethodConnect}
	up, ip, err := p.dial(r.Context(), host, port)
	c.IP = ip
	if err != nil {
		p.refuse(w, c, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "warden egress proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	p.track(up, true)
	p.track(down, true)
	defer func() {
		p.track(up, false)
		p.track(down, false)
		up.Close()
		down.Close()
	}()
	if _, err := down.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return
	}
	// Bytes the client sent right after its CONNECT may already sit in the reader.
	var from io.Reader = rw.Reader
	if len(p.Allow) > 0 {
		_ = down.SetReadDeadline(time.Now().Add(helloWait))
		hello, err := checkHello(rw.Reader, host)
		_ = down.SetReadDeadline(time.Time{})
		if err != nil {
			c.Verdict, c.Reason = Deny, strings.TrimPrefix(err.Error(), errDenied.Error()+": ")
			p.report(c)
			return
		}
		from = io.MultiReader(bytes.NewReader(hello), rw.Reader)
	}
	var out, in atomic.Int64
	done := make(chan struct{}, 2)
	go func() {
		n, _ := io.Copy(up, from)
		out.Add(n)
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		n, _ := io.Copy(down, up)
		in.Add(n)
		closeWrite(down)
		done <- struct{}{}
	}()
	<-done
	<-done
	c.Verdict, c.BytesOut, c.BytesIn = Allow, out.Load(), in.Load()
	p.report(c)
}

// forward sends one plain http:// request to the checked address and
// relays the reply; the connection is not reused.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	host, port := splitHostPort(r.URL.Host, 80)
	c := Conn{Time: time.Now().UTC(), Host: host, Port: port, Method: r.Method}
	up, ip, err := p.dial(r.Context(), host, port)
	c.IP = ip
	if err != nil {
		p.refuse(w, c, err)
		return
	}
	cc := &countConn{Conn: up}
	used := false
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = r.URL
			pr.Out.Host = r.Host
			pr.Out.Header.Del("Proxy-Authorization")
		},
		Transport: &http.Transport{
			Proxy:             nil,
			DisableKeepAlives: true,
			DialContext: func(context.Context, string, string) (net.Conn, error) {
				if used {
					return nil, errDenied // one checked connection per request
				}
				used = true
				return cc, nil
			},
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "warden egress proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
	cc.Close()
	c.Verdict, c.BytesOut, c.BytesIn = Allow, cc.out.Load(), cc.in.Load()
	p.report(c)
}

func (p *Proxy) refuse(w http.ResponseWriter, c Conn, err error) {
	c.Verdict, c.Reason = Fail, err.Error()
	code := http.StatusBadGateway
	if errors.Is(err, errDenied) {
		c.Verdict, c.Reason, code = Deny, strings.TrimPrefix(err.Error(), errDenied.Error()+": "), http.StatusForbidden
	}
	p.report(c)
	http.Error(w, "warden egress proxy: "+c.Host+":"+strconv.Itoa(c.Port)+" "+c.Verdict+": "+c.Reason, code)
}

func splitHostPort(hostport string, def int) (string, int) {
	h, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport, def
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return h, -1
	}
	return h, port
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}

// countConn counts the bytes of a forwarded request and its reply.
type countConn struct {
	net.Conn
	out, in atomic.Int64
}

func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.in.Add(int64(n))
	return n, err
}

// Write counts the bytes before they go: the server's reply (and so the
// end of the request, when the count is read) can come before a Write
// returns; a short write takes the unsent part back.
func (c *countConn) Write(b []byte) (int, error) {
	c.out.Add(int64(len(b)))
	n, err := c.Conn.Write(b)
	c.out.Add(int64(n - len(b)))
	return n, err
}
