package setup

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/warden-bot/warden/config"
)

const usage = `usage: bot setup [flags]

Registers Warden as a GitHub App from its manifest (deploy/app.yml): open the
printed local URL, confirm on GitHub, and the App's id, private key and webhook
secret are written to a .env file (mode 0600). Nothing secret is printed.

`

// ParseFlags reads the flags of `bot setup`; the GitHub URLs default to their
// WARDEN_GITHUB_URL and WARDEN_GITHUB_API_URL settings.
func ParseFlags(args []string, getenv func(string) string, stderr io.Writer) (Options, error) {
	cfg, _, err := config.Load(nil, getenv, stderr)
	if err != nil {
		return Options{}, fmt.Errorf("invalid configuration: %w", err)
	}
	var o Options
	var port int
	fs := flag.NewFlagSet("bot setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
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
