package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// The embedded Redis answers only clients that hold this process's
// password, which no log line carries; asynq's options carry it too.
func TestEmbeddedRedisRequiresItsPassword(t *testing.T) {
	var logs bytes.Buffer
	b, err := Open("", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Ping(ctx); err != nil {
		t.Fatalf("Warden's own client: %v", err)
	}
	opt := b.Opt.(asynq.RedisClientOpt)
	if opt.Password == "" || strings.Contains(logs.String(), opt.Password) {
		t.Fatalf("password %q, logs:\n%s", opt.Password, logs.String())
	}
	stranger := redis.NewClient(&redis.Options{Addr: opt.Addr})
	defer stranger.Close()
	if err := stranger.Set(ctx, "warden:planted", "1", 0).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("a client without the password wrote: %v", err)
	}
	insp := asynq.NewInspector(opt)
	defer insp.Close()
	if _, err := insp.Queues(); err != nil {
		t.Fatalf("asynq with the embedded options: %v", err)
	}
}
