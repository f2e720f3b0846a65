package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ErrPaused is a run's answer while its installation is paused after
// systemic failures: the task waits (asynq retries it without spending a
// retry) until a writer of that installation says `/warden resume`.
var ErrPaused = errors.New("installation paused")

// The pause is per installation: one tenant's failures stop only its own
// work, and only its own writers can resume it.
func pauseKey(installation int64) string {
	return keyPrefix + "paused:" + strconv.FormatInt(installation, 10)
}

// systemicKeyOf is the failure log of one installation. A failure's scope is
// "<installation>:<repo>"; an unscoped one counts for installation 0.
func systemicKeyOf(scope string) string {
	inst, _, _ := strings.Cut(scope, ":")
	if _, err := strconv.ParseInt(inst, 10, 64); err != nil {
		inst = "0"
	}
	return systemicKey + ":" + inst
}

// Pause stops the installation's pipeline runs (status updates and PR
// events keep flowing), after systemic failures; Resume lifts it.
func (q *Queue) Pause(ctx context.Context, installation int64) error {
	if err := q.flags.rdb.Set(ctx, pauseKey(installation), "1", 0).Err(); err != nil {
		return fmt.Errorf("pause installation %d: %w", installation, err)
	}
	return nil
}

// Resume runs the installation's queue again and forgets its recent
// failures, so it starts counting afresh. Other installations are untouched.
func (q *Queue) Resume(ctx context.Context, installation int64) error {
	inst := strconv.FormatInt(installation, 10)
	if err := q.flags.rdb.Del(ctx, pauseKey(installation), systemicKeyOf(inst+":")).Err(); err != nil {
		return fmt.Errorf("resume installation %d: %w", installation, err)
	}
	return nil
}

// Paused reports whether the installation's runs wait for a resume.
func (f *Flags) Paused(ctx context.Context, installation int64) (bool, error) {
	err := f.rdb.Get(ctx, pauseKey(installation)).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read pause of installation %d: %w", installation, err)
	}
	return true, nil
}
