package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/logging"
	"github.com/warden-bot/warden/observe"
)

// observeCmd streams events from every worker until interrupted.
func observeCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
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
	b, err := jobs.Open(*redisURL, logging.New("error", nil, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "bot observe: WARDEN_REDIS_URL: %v\n", err)
		return exitUsage
	}
	defer b.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := observe.Stream(ctx, b.RDB, stdout, *asJSON); err != nil {
		fmt.Fprintf(stderr, "bot observe: %v\n", err)
		return exitFailure
	}
	return exitOK
}
