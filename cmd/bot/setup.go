package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/config"
	"github.com/warden-bot/warden/setup"
)

const setupUsage = `usage: bot setup [flags]

Registers Warden as a GitHub App from its manifest (deploy/app.yml): open the
printed local URL, confirm on GitHub, and the App's id, private key and webhook
secret are written to a .env file (mode 0600). Nothing secret is printed.

`

// setupCmd is `bot setup`: flags and printing; the flow lives in setup/.
func setupCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	o, err := setupOptions(args, getenv, stderr)
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

// setupOptions reads the flags; the GitHub URLs default to their
// WARDEN_GITHUB_URL and WARDEN_GITHUB_API_URL settings.
func setupOptions(args []string, getenv func(string) string, stderr io.Writer) (setup.Options, error) {
	cfg, _, err := config.Load(nil, getenv, stderr)
	if err != nil {
		return setup.Options{}, fmt.Errorf("invalid configuration: %w", err)
	}
	var o setup.Options
	var port int
	fs := flag.NewFlagSet("bot setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, setupUsage); fs.PrintDefaults() }
	fs.IntVar(&port, "port", 3000, "local port of the setup page on 127.0.0.1 (0 = a free one)")
	fs.StringVar(&o.Org, "org", "", "register the App for this organization instead of your account")
	fs.StringVar(&o.PublicURL, "public-url", getenv("WARDEN_PUBLIC_URL"), "public base URL of Warden; the webhook URL is <public-url>/webhooks (WARDEN_PUBLIC_URL)")
	fs.StringVar(&o.EnvPath, "env-file", ".env", "the .env file to create (mode 0600)")
	fs.BoolVar(&o.Force, "force", false, "overwrite an existing .env file")
	fs.StringVar(&o.GitHubURL, "github-url", cfg.GitHubURL, "web URL of GitHub, for Enterprise Server (WARDEN_GITHUB_URL)")
	fs.StringVar(&o.APIURL, "github-api-url", cfg.GitHubAPIURL, "REST base URL of GitHub (WARDEN_GITHUB_API_URL)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if port < 0 || port > 65535 {
		return o, errors.New("--port must be between 0 and 65535")
	}
	o.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("invalid configuration: %w", err)
	}
	return o, nil
}
