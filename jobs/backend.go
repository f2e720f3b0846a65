// Package jobs is Warden's queue: task types and payloads, TaskIDs, the asynq
// client and server, cancel flags, delivery deduplication and the mapping
// from an outcome to asynq's result. It knows Redis and asynq, not HTTP.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/config/redisurl"
)

// Backend is the Redis Warden runs on: asynq's connection options and a
// go-redis client for Warden's own keys, sharing one server.
type Backend struct {
	Opt  asynq.RedisConnOpt
	RDB  redis.UniversalClient
	mini *miniredis.Miniredis
}

// Open connects to the Redis at url, or starts an embedded in-process Redis
// when url is empty. The embedded one keeps nothing on disk and serves one
// process only, which is fine for `make run` and nothing else.
func Open(url string, log *slog.Logger) (*Backend, error) {
	if url == "" {
		return openEmbedded(log)
	}
	opt, err := redisurl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("WARDEN_REDIS_URL: %w", err)
	}
	rdb, ok := opt.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return nil, fmt.Errorf("redis client for %T is not a go-redis client", opt)
	}
	return &Backend{Opt: opt, RDB: rdb}, nil
}

// openEmbedded starts miniredis on loopback. miniredis listens on TCP only
// (no Unix socket), where any local process could connect, so it requires a
// password made for this process alone: never printed, logged or stored.
func openEmbedded(log *slog.Logger) (*Backend, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("embedded redis password: %w", err)
	}
	pw := hex.EncodeToString(b[:])
	m := miniredis.NewMiniRedis()
	m.RequireAuth(pw)
	if err := m.Start(); err != nil {
		return nil, fmt.Errorf("start embedded redis: %w", err)
	}
	log.Warn("using an embedded in-process Redis: nothing persists and only this process can use it (it requires a password made at start); set WARDEN_REDIS_URL for real deployments", "addr", m.Addr())
	opt := asynq.RedisClientOpt{Addr: m.Addr(), Password: pw}
	return &Backend{Opt: opt, RDB: redis.NewClient(&redis.Options{Addr: m.Addr(), Password: pw}), mini: m}, nil
}

// Ping answers whether Redis is reachable.
func (b *Backend) Ping(ctx context.Context) error { return b.RDB.Ping(ctx).Err() }

// Close releases the connection and stops the embedded server, if any.
func (b *Backend) Close() error {
	err := b.RDB.Close()
	if b.mini != nil {
		b.mini.Close()
	}
	return err
}
