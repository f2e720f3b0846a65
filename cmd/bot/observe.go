package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/jobs"
)

// observe streams events from every worker until interrupted.
func observe(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per event")
	redisURL := fs.String("redis-url", getenv("WARDEN_REDIS_URL"), "Redis URL (WARDEN_REDIS_URL)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *redisURL == "" {
		fmt.Fprintln(stderr, "bot observe: WARDEN_REDIS_URL is required: the embedded Redis of another process cannot be observed")
		return exitUsage
	}
	cfg := &config.Config{RedisURL: *redisURL}
	b, err := jobs.Open(cfg.RedisURL, newLogger(&config.Config{LogLevel: "error"}, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "bot observe: WARDEN_REDIS_URL: %v\n", err)
		return exitUsage
	}
	defer b.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err = jobs.Subscribe(ctx, b.RDB, func(e jobs.Event, raw []byte) {
		if *asJSON {
			fmt.Fprintf(stdout, "%s\n", raw)
			return
		}
		fmt.Fprintf(stdout, "%s %-10s %-20s task=%s stage=%s %s\n", e.Time.Format("15:04:05.000"), e.Worker, e.Kind, e.Task, e.Stage, e.Err)
	})
	if err != nil {
		fmt.Fprintf(stderr, "bot observe: %v\n", err)
		return exitFailure
	}
	_ = os.Stdout.Sync()
	return exitOK
}
