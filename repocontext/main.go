package repocontext

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/warden-bot/warden/repocontext/repoindex"
	"github.com/warden-bot/warden/trusted"
)

// Exit codes as cmd/bot uses them (CONTRACT §1).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// Main is `bot context --repo PATH --title T [--body B] [--json]`: it prints
// what the planner would be shown for that issue on that checkout, the
// files in order with whether each one's outline and content are shown, and
// the prompt's token estimate. The index is cached under the data dir
// (WARDEN_DATA_DIR, default ./data) per commit.
func Main(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("context", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", "", "path of a git checkout")
	title := fs.String("title", "", "issue title")
	body := fs.String("body", "", "issue body")
	asJSON := fs.Bool("json", false, `print {"files":[{"path","outline","content"}],"tokens":N}`)
	full := fs.Bool("full", false, "print the rendered view itself after the file list")
	budget := fs.Int("budget", 0, "token budget (default: the repository's context_tokens, else 12000)")
	dataDir := fs.String("data-dir", or(getenv("WARDEN_DATA_DIR"), "./data"), "data dir; the index cache lives in <data-dir>/index")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *repo == "" || *title == "" {
		fmt.Fprintln(stderr, "bot context: --repo and --title are required")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	x, err := repoindex.Open(ctx, *repo, IndexDir(*dataDir))
	if err != nil {
		fmt.Fprintf(stderr, "bot context: %v\n", err)
		return exitFailure
	}
	// The instructions and context_tokens are the default branch's, as
	// Warden reads them (package trusted), not the checkout's files.
	in, _, err := trusted.ReadLocal(ctx, *repo, "")
	if err != nil {
		fmt.Fprintf(stderr, "bot context: %v\n", err)
		return exitFailure
	}
	if *budget <= 0 {
		*budget = or(in.Config.ContextTokens, DefaultBudget)
	}
	v := Build(x, NewQuery(*title, *body), Options{Budget: *budget, Dir: *repo, Docs: in.Docs})
	if *asJSON {
		if v.Files == nil {
			v.Files = []Shown{}
		}
		_ = json.NewEncoder(stdout).Encode(v)
		return exitOK
	}
	for _, f := range v.Files {
		fmt.Fprintf(stdout, "%-8s %-8s %s\n", yes(f.Outline, "outline"), yes(f.Content, "content"), f.Path)
	}
	fmt.Fprintf(stdout, "tokens: %d\n", v.Tokens)
	if *full {
		fmt.Fprintf(stdout, "\n%s", v.Text)
	}
	return exitOK
}

// IndexDir is where indexes are cached under a data dir.
func IndexDir(dataDir string) string { return filepath.Join(dataDir, "index") }

func yes(b bool, s string) string {
	if b {
		return s
	}
	return "-"
}

func or[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}
