package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Task types.
const (
	TypeRun    = "warden:run"    // one pipeline attempt for one issue
	TypeStatus = "warden:status" // a quick status-comment update ("queued", "already queued", "canceled")
)

// Queues: status updates jump ahead of pipelines so a maintainer sees an
// answer even when every worker slot is busy.
const (
	QueueCritical = "critical"
	QueueDefault  = "default"
)

// Reasons a run was queued.
const (
	ReasonLabel    = "label"
	ReasonApprove  = "approve" // a writer approved the plan kept for approval
	ReasonSteer    = "steer"   // a writer steered a run awaiting approval: plan again
	ReasonRetry    = "retry"
	ReasonUnblock  = "unblock"
	ReasonDeferred = "deferred"
	ReasonChild    = "subtask"
	ReasonCheck    = "check"
)

// RunPayload names an issue and how to reach its repository. The worker
// re-reads the issue from GitHub; title and body here are what the webhook saw.
type RunPayload struct {
	Repo          string `json:"repo"`              // owner/name
	RepoID        int64  `json:"repo_id,omitempty"` // GitHub's id: data on disk is the repository's, not the name's
	Installation  int64  `json:"installation"`
	Issue         int    `json:"issue"`
	IssueID       int64  `json:"issue_id,omitempty"`
	Mode          string `json:"mode"`
	Title         string `json:"title"`
	Body          string `json:"body"`
	CloneURL      string `json:"clone_url"`
	DefaultBranch string `json:"default_branch"`
	Sender        string `json:"sender"`
	Delivery      string `json:"delivery,omitempty"`
	Reason        string `json:"reason"`
	Deferrals     int    `json:"deferrals,omitempty"`
	Depth         int    `json:"depth,omitempty"`
	Parent        int    `json:"parent,omitempty"`
	PR            int    `json:"pr,omitempty"` // a follow-up's pull request
	// RetryAt is when a writer's `/warden retry` on the issue was written:
	// it hands back a branch held by pushes made before it (followup.Continue).
	RetryAt time.Time `json:"retry_at,omitzero"`
}

// Key identifies the issue: owner/name#n.
func (p RunPayload) Key() string { return IssueKey(p.Repo, p.Issue) }

// IssueKey is owner/name#n.
func IssueKey(repo string, issue int) string { return fmt.Sprintf("%s#%d", repo, issue) }

// RunTaskID is the one TaskID an issue's pipeline may hold: asynq refuses a
// second task with it while the first is queued or running, which is how
// "one issue has at most one task" is kept across web pods.
func RunTaskID(repo string, issue int) string { return "run:" + IssueKey(repo, issue) }

// RunTimeout bounds one pipeline attempt; asynq's lease recovery takes over
// when a worker dies, this catches one that lives but never returns.
const RunTimeout = 2 * time.Hour

// MaxRunRetries is asynq's own retry budget, kept small: retries of model and
// API calls happen inside the pipeline; these are for crashed workers.
const MaxRunRetries = 5

// NewRunTask builds the pipeline task for an issue.
func NewRunTask(p RunPayload, opts ...asynq.Option) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode run payload %s: %w", p.Key(), err)
	}
	base := []asynq.Option{
		asynq.TaskID(RunTaskID(p.Repo, p.Issue)), asynq.Queue(QueueDefault),
		asynq.MaxRetry(MaxRunRetries), asynq.Timeout(RunTimeout),
	}
	return asynq.NewTask(TypeRun, b, append(base, opts...)...), nil
}

// StatusPayload asks the worker to show a state on the issue's status comment.
type StatusPayload struct {
	Repo         string `json:"repo"`
	Installation int64  `json:"installation"`
	Issue        int    `json:"issue"`
	Mode         string `json:"mode"`
	State        string `json:"state"` // queued, canceled
	Note         string `json:"note,omitempty"`
}

// NewStatusTask builds a status-update task.
func NewStatusTask(p StatusPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode status payload: %w", err)
	}
	return asynq.NewTask(TypeStatus, b, asynq.Queue(QueueCritical), asynq.MaxRetry(5), asynq.Timeout(2*time.Minute)), nil
}

func decode[T any](t *asynq.Task) (T, error) {
	var v T
	if err := json.Unmarshal(t.Payload(), &v); err != nil {
		return v, fmt.Errorf("decode %s payload: %w: %w", t.Type(), err, asynq.SkipRetry)
	}
	return v, nil
}

// TypePR re-evaluates a Warden pull request: merge policy (maintenance),
// approval status (evolution), closing.
const TypePR = "warden:pr"

// TypeIssueClosed resumes work that waited on a closed issue: blocked issues
// and decomposed parents.
const TypeIssueClosed = "warden:issue-closed"

// PRPayload names a pull request (or a head SHA whose PRs must be found).
type PRPayload struct {
	Repo         string `json:"repo"`
	Installation int64  `json:"installation"`
	PR           int    `json:"pr,omitempty"`
	SHA          string `json:"sha,omitempty"`
	Action       string `json:"action"` // checks, sync, review, closed, status, retry, dequeued, rules
	Merged       bool   `json:"merged,omitempty"`
	Sender       string `json:"sender,omitempty"`
	// Reason is why the merge queue removed the PR (dequeued).
	Reason string `json:"reason,omitempty"`
}

// ClosedPayload names an issue that was closed.
type ClosedPayload struct {
	Repo          string `json:"repo"`
	RepoID        int64  `json:"repo_id,omitempty"`
	Installation  int64  `json:"installation"`
	Issue         int    `json:"issue"`
	CloneURL      string `json:"clone_url"`
	DefaultBranch string `json:"default_branch"`
}

// NewPRTask builds a PR re-evaluation task. Events for one PR arrive in
// bursts (a check suite and each of its runs); every evaluation re-reads the
// PR's state from the API, so repeats are harmless.
func NewPRTask(p PRPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode pr payload: %w", err)
	}
	return asynq.NewTask(TypePR, b, asynq.Queue(QueueCritical), asynq.MaxRetry(5), asynq.Timeout(2*time.Minute)), nil
}

// NewClosedTask builds an issue-closed task.
func NewClosedTask(p ClosedPayload) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode closed payload: %w", err)
	}
	return asynq.NewTask(TypeIssueClosed, b, asynq.Queue(QueueCritical), asynq.MaxRetry(5), asynq.Timeout(2*time.Minute)), nil
}
