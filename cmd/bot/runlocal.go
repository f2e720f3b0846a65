package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/agent/sessions"
	"github.com/warden-bot/warden/cli/localrun"
	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/observe/logging"
	"github.com/warden-bot/warden/outcome"
)

// runLocal runs the pipeline on a local checkout without GitHub (CONTRACT §1).
func runLocal(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	la, rest, err := localrun.Parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot run: %v\n", err)
		return exitUsage
	}
	cfg, _, code := loadConfig(rest, getenv, stderr, func(*config.Config) string { return "worker" })
	if cfg == nil {
		return code
	}
	log := logging.New(cfg.LogLevel, cfg.Secrets(), io.Discard)
	newSession, err := sessions.New(cfg, log)
	if err == nil {
		la.TaskSessions, err = sessions.LocalTasks(cfg, log)
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot run: %v\n", err)
		return exitFailure
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rec, comment, err := localrun.Run(ctx, la, newSession, cfg.LabelPrefix, log, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bot run: %v\n", err)
		return exitFailure
	}
	if la.JSON {
		b, _ := json.Marshal(rec)
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintln(stdout, comment)
	}
	if rec.Outcome != outcome.Completed {
		return exitFailure
	}
	return exitOK
}
