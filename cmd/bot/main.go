// Command bot is Warden: `bot serve` runs the webhook server and the worker,
// `bot run` runs the pipeline on a local checkout, `bot observe` streams
// supervisor events, `bot setup` registers the GitHub App from its manifest,
// `bot version` says what this binary is.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"strings"

	"github.com/warden-bot/warden/cli/inspect"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/observe"
	"github.com/warden-bot/warden/repocontext"
	"github.com/warden-bot/warden/sandbox/gocache"
)

// Set by the linker (see Makefile).
var (
	version = "dev"
	commit  = "unknown"
)

const usage = `usage: bot <command> [flags]

commands:
  serve     webhook server and worker (--role all|web|worker)
  run       the whole pipeline on a local checkout, no GitHub (--repo PATH --title T --mode maintenance|evolution)
  observe   stream supervisor and task events from every worker (--json)
  context   what the planner would see of a checkout for an issue (--repo PATH --title T [--body B] [--json])
  inspect   what Warden would use in a checkout: image, setup and test commands and their
            source, instruction files, each mode's limits (--repo PATH [--json])
  setup     register the GitHub App from deploy/app.yml in a browser and write its
            id, private key and webhook secret to .env, mode 0600
            (--port 3000 --org ORG --public-url URL --env-file .env --force)
  version   print version, commit and Go version

Every setting is an environment variable with a flag of the same name; see README.md.
`

// The go command inside the sandbox runs this binary as its GOCACHEPROG
// (`bot gocacheprog`, see sandbox/gocache).
func init() {
	if exe, err := os.Executable(); err == nil && !strings.HasSuffix(exe, ".test") {
		workspace.GoCacheProg = exe
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// Exit codes (CONTRACT §1).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], getenv, stderr)
	case "run":
		return runLocal(args[1:], getenv, stdout, stderr)
	case "observe":
		return observe.Main(args[1:], getenv, stdout, stderr)
	case "context":
		return repocontext.Main(args[1:], getenv, stdout, stderr)
	case "inspect":
		return inspect.Main(args[1:], getenv, stdout, stderr)
	case "setup":
		return setupCmd(args[1:], getenv, stdout, stderr)
	case "gocacheprog": // run by go inside the sandbox, not by people
		return gocache.Main(args[1:], os.Stdin, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "warden %s (commit %s, %s %s/%s)\n", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "bot: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
