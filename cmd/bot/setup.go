package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/cli/setup"
)

// setupCmd is `bot setup`: flags and printing; the flow lives in setup/.
func setupCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	o, err := setup.ParseFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot setup: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := setup.Run(ctx, o, func(url string) {
		fmt.Fprintf(stdout, "Open %s in a browser to register the GitHub App (Ctrl-C to stop).\n", url)
	})
	if errors.Is(err, setup.ErrExists) {
		fmt.Fprintf(stderr, "bot setup: %v\n", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot setup: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "Created the GitHub App %q (id %d): %s\nWrote %s (mode 0600).\nInstall it: %s\n",
		res.Name, res.AppID, res.HTMLURL, res.EnvPath, res.InstallURL)
	if res.PlaceholderURL {
		fmt.Fprintf(stdout, "The webhook URL is a placeholder (%s): set it to https://<your host>/webhooks in the App's settings.\n", res.WebhookURL)
	}
	fmt.Fprintln(stdout, "Then start Warden: set -a; . ./.env; set +a; bin/bot serve")
	return exitOK
}
