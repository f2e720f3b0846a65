package observe

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/sandbox/egress"
)

// A sandbox's connection reaches `bot observe` with host, port, bytes and
// verdict, and its human line names them.
func TestEgressConnectionPublished(t *testing.T) {
	pub := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewSink(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, pub, comments.NewRedactor())
	s.Egress(pipeline.Task{Repo: "acme/calc", Issue: 7}, "Setup", egress.Conn{Time: time.Now(), Host: "127.0.0.1", Port: 6379,
		Method: "CONNECT", Verdict: egress.Deny, Reason: "127.0.0.1 is not a public address"})
	e := pub.wait(t, 1)[0]
	if e.Kind != "egress" || e.Task != "acme/calc#7" || e.Fields["host"] != "127.0.0.1" || e.Fields["verdict"] != egress.Deny {
		t.Fatalf("event %+v", e)
	}
	if l := Line(e); !strings.Contains(l, "127.0.0.1:6379 denied") {
		t.Fatalf("line %q", l)
	}
}
