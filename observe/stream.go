package observe

import (
	"context"
	"fmt"
	"io"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/jobs"
)

// Stream prints every worker's events to w until ctx ends: one JSON object
// per line with asJSON, else one aligned human line.
func Stream(ctx context.Context, rdb redis.UniversalClient, w io.Writer, asJSON bool) error {
	return jobs.Subscribe(ctx, rdb, func(e jobs.Event, raw []byte) {
		if asJSON {
			fmt.Fprintf(w, "%s\n", raw)
			return
		}
		fmt.Fprintln(w, Line(e))
	})
}

// Line is the human form of one event.
func Line(e jobs.Event) string {
	if e.Kind == "egress" { // who the sandbox tried to reach, and the verdict
		return fmt.Sprintf("%s %-10s %-20s task=%s stage=%s %v:%v %v out=%v in=%v %s", e.Time.Format("15:04:05.000"), e.Worker, e.Kind, e.Task, e.Stage,
			e.Fields["host"], e.Fields["port"], e.Fields["verdict"], e.Fields["bytes_out"], e.Fields["bytes_in"], e.Err)
	}
	return fmt.Sprintf("%s %-10s %-20s task=%s stage=%s %s", e.Time.Format("15:04:05.000"), e.Worker, e.Kind, e.Task, e.Stage, e.Err)
}
