package observe

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/observe/logging"
)

// Main is `bot observe`: it streams events from every worker until
// interrupted. Exit codes as the binary's: 0, 1 failure, 2 usage.
func Main(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("observe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per event")
	redisURL := fs.String("redis-url", getenv("WARDEN_REDIS_URL"), "Redis URL (WARDEN_REDIS_URL)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *redisURL == "" {
		fmt.Fprintln(stderr, "bot observe: WARDEN_REDIS_URL is required: the embedded Redis of another process cannot be observed")
		return 2
	}
	b, err := jobs.Open(*redisURL, logging.New("error", nil, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "bot observe: WARDEN_REDIS_URL: %v\n", err)
		return 2
	}
	defer b.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := Stream(ctx, b.RDB, stdout, *asJSON); err != nil {
		fmt.Fprintf(stderr, "bot observe: %v\n", err)
		return 1
	}
	return 0
}
