package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/hibiken/asynq"
)

// DeliveryRetention is how long a task queued for a webhook delivery keeps
// its delivery-derived TaskID after it ran. A delivery answered 503 after an
// enqueue whose reply was lost (Redis died between doing it and saying so)
// is redelivered; within this window the copy finds the TaskID taken
// instead of queueing the same status reply or PR check again.
const DeliveryRetention = time.Hour

type deliveryCtxKey struct{}

// WithDelivery marks ctx as handling webhook delivery id.
func WithDelivery(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, deliveryCtxKey{}, id)
}

// enqueueOnce queues task; under a delivery (WithDelivery) it is queued at
// most once per delivery and payload. Run tasks have their own TaskID (one
// per issue) and do not come here.
func (q *Queue) enqueueOnce(ctx context.Context, task *asynq.Task) error {
	id, _ := ctx.Value(deliveryCtxKey{}).(string)
	if id == "" {
		_, err := q.client.EnqueueContext(ctx, task)
		return err
	}
	h := sha256.Sum256([]byte(id + "\x00" + task.Type() + "\x00" + string(task.Payload())))
	_, err := q.client.EnqueueContext(ctx, task, asynq.TaskID("d:"+hex.EncodeToString(h[:12])), asynq.Retention(DeliveryRetention))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil // an earlier copy of this delivery queued it
	}
	return err
}
