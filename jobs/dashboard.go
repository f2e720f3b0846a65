package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeDashboard refreshes a repository's dashboard issue (package dashboard).
const TypeDashboard = "warden:dashboard"

// DashboardDelay is how long a refresh waits for the rest of its burst:
// every state change in that window is answered by one edit.
const DashboardDelay = 3 * time.Second

// DashboardPayload names the repository whose dashboard to refresh, and
// what a person did to it.
type DashboardPayload struct {
	Repo          string `json:"repo"`
	RepoID        int64  `json:"repo_id,omitempty"`
	Installation  int64  `json:"installation"`
	CloneURL      string `json:"clone_url,omitempty"`
	DefaultBranch string `json:"default_branch,omitempty"`
	// Retry lists the issues a writer ticked: each is `/warden retry` on it.
	Retry  []int  `json:"retry,omitempty"`
	Sender string `json:"sender,omitempty"`
	// Rewrite sends the body even when it is the one Warden wrote last:
	// someone else edited the issue, so GitHub's copy differs.
	Rewrite bool `json:"rewrite,omitempty"`
}

// NewDashboardTask builds a dashboard refresh.
func NewDashboardTask(p DashboardPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode dashboard payload %s: %w", p.Repo, err)
	}
	return asynq.NewTask(TypeDashboard, b, asynq.Queue(QueueCritical), asynq.MaxRetry(5), asynq.Timeout(2*time.Minute)), nil
}

// EnqueueDashboard queues a refresh of the repository's dashboard. A plain
// refresh runs DashboardDelay from now under one id per window of that
// length, so a burst of events is one refresh: every event of a window
// happens before its refresh starts (it starts at least DashboardDelay
// after the window's first event). A person's edit is answered at once,
// once per delivery.
func (q *Queue) EnqueueDashboard(ctx context.Context, p DashboardPayload) error {
	task, err := NewDashboardTask(p)
	if err != nil {
		return err
	}
	if p.Rewrite || len(p.Retry) > 0 {
		if err := q.enqueueOnce(ctx, task); err != nil {
			return fmt.Errorf("enqueue dashboard edit %s: %w", p.Repo, err)
		}
		return nil
	}
	id := fmt.Sprintf("dashboard:%s:%d", p.Repo, time.Now().UnixNano()/int64(DashboardDelay))
	_, err = q.client.EnqueueContext(ctx, task, asynq.TaskID(id), asynq.ProcessIn(DashboardDelay))
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("enqueue dashboard %s: %w", p.Repo, err)
	}
	return nil
}
