// Package web assembles Warden's HTTP surface: the webhook endpoint, health
// and readiness probes, Prometheus metrics, the operator API and the
// operator's status page (/ui).
package web

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type pinger interface {
	Ping(ctx context.Context) error
}

// Surface is the part of the HTTP surface one listener serves.
type Surface int

const (
	All    Surface = iota // everything on one address (WARDEN_OPS_ADDR=shared)
	Public                // /webhooks, /healthz, /readyz: what GitHub and probes reach
	Ops                   // /metrics, /ui, /api: the operator's, on loopback by default
)

func (s Surface) String() string { return [...]string{"all", "public", "ops"}[s] }

// Options are the pieces the HTTP surface serves.
type Options struct {
	Surface    Surface
	Webhooks   echo.HandlerFunc // nil on a worker-only process
	Redis      pinger
	Registry   *prometheus.Registry
	UIPassword string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed for the client address (WARDEN_TRUSTED_PROXIES).
	TrustedProxies []*net.IPNet
	Operator       func(g *echo.Group)                        // mounts routes under /api; nil for none
	Status         func(ctx context.Context) (*Status, error) // what /ui shows; nil for no page
	// Transcript reads an attempt's transcript for /ui/transcript/…; nil
	// for none.
	Transcript func(ctx context.Context, repo string, issue, attempt int) (string, bool, error)
	Log        *slog.Logger
}

// New builds the echo instance.
func New(o Options) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	harden(e, o.TrustedProxies, o.Log)
	// Every request gets an id of Warden's own, echoed in the response and
	// logged with the delivery id by the access log and handlers.
	e.Use(requestID(), requestLog(o.Log))
	if o.Surface != Ops {
		publicRoutes(e, o)
	}
	if o.Surface != Public {
		opsRoutes(e, o)
	}
	return e
}

// publicRoutes are the webhook endpoint and the probes.
func publicRoutes(e *echo.Echo, o Options) {
	if o.Webhooks != nil {
		e.POST("/webhooks", o.Webhooks)
	}
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if err := o.Redis.Ping(ctx); err != nil {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "redis does not answer"})
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})
}

// opsRoutes are the metrics and, with a password, the operator routes.
func opsRoutes(e *echo.Echo, o Options) {
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{})), metricsAuth(o))
	// Auth sits on /api and /ui only: a group without a prefix would answer
	// 401 instead of 404 for every unknown path.
	if o.UIPassword != "" {
		auth := basicAuth(o.UIPassword)
		if o.Operator != nil {
			o.Operator(e.Group("/api", auth))
		}
		if o.Status != nil {
			e.GET("/ui", statusPage(o.Status), auth)
			e.GET("/ui/", statusPage(o.Status), auth)
		}
		if o.Transcript != nil {
			e.GET("/ui/transcript/:owner/:repo/:issue/:attempt", transcriptPage(o.Transcript), auth)
		}
	}
}

// basicAuth guards the operator routes; any user name, the configured password.
func basicAuth(password string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			_, p, ok := c.Request().BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(p), []byte(password)) != 1 {
				c.Response().Header().Set("WWW-Authenticate", `Basic realm="warden"`)
				return c.JSON(http.StatusUnauthorized, map[string]string{"status": "unauthorized"})
			}
			return next(c)
		}
	}
}

func requestLog(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if c.Path() == "/healthz" || c.Path() == "/metrics" || c.Path() == "/readyz" {
				return err
			}
			log.Info("http request", "method", c.Request().Method, "path", c.Path(),
				"code", c.Response().Status, "delivery", logSafe(c.Request().Header.Get("X-GitHub-Delivery")),
				"request_id", c.Response().Header().Get(echo.HeaderXRequestID), "duration_ms", time.Since(start).Milliseconds())
			return err
		}
	}
}
