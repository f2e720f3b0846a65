package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/warden-bot/warden/agent/sessions"
	"github.com/warden-bot/warden/followup"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/followup/steer"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/observe/logging"
	"github.com/warden-bot/warden/observe/metrics"
	"github.com/warden-bot/warden/web"
	"github.com/warden-bot/warden/web/operator"
	"github.com/warden-bot/warden/webhooks"
)

// loadConfig reads and validates settings, printing a message that names the
// bad setting. ok is false when the caller must exit 2.
// loadConfig loads and validates the settings; without a configuration it
// returns the exit code: 0 after --help (the flag package printed the
// settings), 2 for a bad setting.
func loadConfig(args []string, getenv func(string) string, stderr io.Writer, role func(*config.Config) string) (*config.Config, []string, int) {
	cfg, rest, err := config.Load(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, exitOK
	}
	if err == nil {
		err = cfg.Validate(role(cfg))
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot: invalid configuration: %v\n", err)
		return nil, nil, exitUsage
	}
	return cfg, rest, exitOK
}

func serve(args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, _, code := loadConfig(args, getenv, stderr, func(c *config.Config) string { return c.Role })
	if cfg == nil {
		return code
	}
	cliWarning, err := sessions.CheckCLI(cfg)
	if err != nil { // a missing, older or other-major CLI is bad configuration
		fmt.Fprintf(stderr, "bot: invalid configuration: %v\n", err)
		return exitUsage
	}
	log := logging.New(cfg.LogLevel, cfg.Secrets(), os.Stderr)
	var warnings []string
	if cliWarning != "" {
		log.Warn("agent CLI newer than the pinned version", "warning", cliWarning)
		warnings = append(warnings, cliWarning)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serveWith(ctx, cfg, log, warnings); err != nil {
		log.Error("warden stopped", "err", err)
		return exitFailure
	}
	return exitOK
}

// app is everything one process holds.
type app struct {
	cfg     *config.Config
	log     *slog.Logger
	backend *jobs.Backend
	queue   *jobs.Queue
	metrics *metrics.Metrics
	gh      *githubapp.App // nil without App credentials
	// warnings are start-up findings that do not stop the process (a
	// newer agent CLI); /ui shows them.
	warnings []string
}

func serveWith(ctx context.Context, cfg *config.Config, log *slog.Logger, warnings []string) error {
	a, err := newApp(cfg, log)
	if err != nil {
		return err
	}
	a.warnings = warnings
	defer a.close()
	errc := make(chan error, 2)
	var srv *jobs.Server
	if cfg.Role != "web" {
		if srv, err = a.startWorker(ctx); err != nil {
			return err
		}
	}
	servers := a.listen(errc)
	select {
	case <-ctx.Done():
		log.Info("shutting down: no new work is accepted; running tasks get the shutdown timeout", "timeout", cfg.ShutdownTimeout)
	case err = <-errc:
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, e := range servers {
		_ = e.Shutdown(shutCtx)
	}
	if srv != nil {
		srv.Shutdown() // waits up to ShutdownTimeout, then requeues what still runs
	}
	return err
}

func newApp(cfg *config.Config, log *slog.Logger) (*app, error) {
	backend, err := jobs.Open(cfg.RedisURL, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, backend: backend, queue: jobs.NewQueue(backend), metrics: metrics.New()}
	a.metrics.Registry.MustRegister(metrics.QueueCollector{Inspector: a.queue.Inspector(), Queues: []string{jobs.QueueCritical, jobs.QueueDefault}},
		metrics.FingerprintCollector{History: jobs.NewHistory(backend.RDB), Top: 10})
	if cfg.HasApp() {
		a.gh, err = githubapp.New(githubapp.Options{AppID: cfg.AppID, PrivateKey: []byte(cfg.PrivateKey), BaseURL: cfg.GitHubAPIURL,
			Observe: func(method, code string) { a.metrics.GitHubCalls.WithLabelValues(method, code).Inc() }})
		if err != nil {
			a.close()
			return nil, err
		}
	} else {
		log.Warn("no GitHub App configured (WARDEN_APP_ID, WARDEN_PRIVATE_KEY_PATH): webhooks are verified but nothing is queued")
	}
	return a, nil
}

func (a *app) close() {
	_ = a.queue.Close()
	_ = a.backend.Close()
}

// listen serves the public routes on WARDEN_ADDR and the operator's on
// WARDEN_OPS_ADDR, or everything on WARDEN_ADDR when that is "shared".
func (a *app) listen(errc chan<- error) []*echo.Echo {
	surfaces := map[string]web.Surface{a.cfg.Addr: web.Public, a.cfg.OpsAddr: web.Ops}
	if a.cfg.OpsAddr == "shared" {
		surfaces = map[string]web.Surface{a.cfg.Addr: web.All}
	}
	var out []*echo.Echo
	for addr, surface := range surfaces {
		e := a.echo(surface)
		out = append(out, e)
		go func() {
			a.log.Info("warden listening", "addr", addr, "surface", surface.String(), "role", a.cfg.Role, "version", version)
			if err := e.Start(addr); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("http server %s: %w", addr, err)
			}
		}()
	}
	return out
}

func (a *app) echo(surface web.Surface) *echo.Echo {
	api := &operator.API{Queue: a.queue, RDB: a.backend.RDB, Version: version, Ledger: sessions.NewLedger(a.cfg, a.backend.RDB, nil), Warnings: a.warnings, DefaultImage: a.cfg.DefaultImage}
	proxies, _ := web.ParseProxies(a.cfg.TrustedProxies) // checked by config.Validate
	opts := web.Options{Surface: surface, Redis: a.backend, Registry: a.metrics.Registry, UIPassword: a.cfg.UIPassword, Log: a.log, Operator: api.Routes, Status: api.Status,
		Transcript:     jobs.NewTranscripts(a.backend.RDB).Get,
		TrustedProxies: proxies}
	if a.cfg.Role != "worker" {
		opts.Webhooks = a.webhookHandler().ServeHTTP
	}
	return web.New(opts)
}

func (a *app) webhookHandler() *webhooks.Handler {
	r := &webhooks.Router{Prefix: a.cfg.LabelPrefix, Queue: a.queue, Log: a.log, Followups: followup.NewStore(a.backend.RDB),
		Refusals: jobs.NewFlags(a.backend.RDB), Dashboard: a.queue, Steer: steer.NewStore(a.backend.RDB), Runs: a.queue}
	if a.gh != nil {
		r.App = a.gh
		r.Perms = githubapp.NewPermissionCache(a.gh, 30*time.Second)
	}
	return &webhooks.Handler{
		Secret:     []byte(a.cfg.WebhookSecret),
		Deliveries: jobs.NewDeliveries(a.backend.RDB, a.cfg.DeliveryTTL),
		Window:     a.cfg.DeliveryTTL,
		Router:     r,
		Log:        a.log,
		Observe:    func(event, result string) { a.metrics.Webhooks.WithLabelValues(event, result).Inc() },
	}
}
