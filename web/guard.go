package web

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Limits of every listener. GitHub connects, sends and reads quickly; only
// a caller who stalls on purpose meets them.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second // a whole 25 MiB body
	WriteTimeout      = 60 * time.Second // a delivery's answer waits for Redis at most a few seconds
	IdleTimeout       = 60 * time.Second // keep-alive between GitHub's deliveries
	MaxHeaderBytes    = 64 << 10         // GitHub's headers are a few KB; net/http's default is 1 MiB
)

// harden sets the server's timeouts and header cap, where the client
// address comes from, and recovers handler panics through the (redacting)
// logger instead of echo's stdout.
func harden(e *echo.Echo, proxies []*net.IPNet, log *slog.Logger) {
	e.Server.ReadHeaderTimeout, e.Server.ReadTimeout = ReadHeaderTimeout, ReadTimeout
	e.Server.WriteTimeout, e.Server.IdleTimeout = WriteTimeout, IdleTimeout
	e.Server.MaxHeaderBytes = MaxHeaderBytes
	e.IPExtractor = ipExtractor(proxies)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisableStackAll: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			log.Error("http handler panicked", "path", c.Path(), "err", err, "stack", string(stack))
			return err
		},
	}))
}

// ipExtractor takes the client address from the connection; X-Forwarded-For
// is believed only when the connection comes from a configured proxy.
func ipExtractor(proxies []*net.IPNet) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range proxies {
		opts = append(opts, echo.TrustIPRange(p))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// ParseProxies reads WARDEN_TRUSTED_PROXIES: comma-separated CIDRs or
// single addresses.
func ParseProxies(s string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			if ip := net.ParseIP(f); ip != nil && ip.To4() != nil {
				f += "/32"
			} else {
				f += "/128"
			}
		}
		_, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// requestID gives every request an id of Warden's own: a caller's
// X-Request-ID is never echoed nor logged, so it cannot forge log lines or
// make each line expensive to redact.
func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id := hex.EncodeToString(b[:])
			c.Request().Header.Set(echo.HeaderXRequestID, id)
			c.Response().Header().Set(echo.HeaderXRequestID, id)
			return next(c)
		}
	}
}

// logSafe is a caller-chosen header value fit for a log line: letters,
// digits and -_.: only, at most 64 of them.
func logSafe(v string) string {
	var b strings.Builder
	for _, c := range v {
		if b.Len() >= 64 {
			break
		}
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-_.:", c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// metricsAuth guards /metrics when it is served on the public port: it
// names private repositories, failures and spend. Without a password there
// it answers 404, as an unserved route would.
func metricsAuth(o Options) echo.MiddlewareFunc {
	if o.Surface != All {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	if o.UIPassword == "" {
		return func(echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error { return c.NoContent(http.StatusNotFound) }
		}
	}
	return basicAuth(o.UIPassword)
}
