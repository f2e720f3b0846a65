package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/jobs"
)

type queue interface {
	EnqueueRun(ctx context.Context, p jobs.RunPayload, opts ...asynq.Option) (jobs.EnqueueResult, error)
	EnqueueStatus(ctx context.Context, p jobs.StatusPayload) error
	EnqueuePR(ctx context.Context, p jobs.PRPayload) error
	EnqueueClosed(ctx context.Context, p jobs.ClosedPayload) error
	Cancel(ctx context.Context, repo string, issue int) (jobs.CancelResult, error)
	Resume(ctx context.Context, installation int64) error
}

type refusalLimiter interface {
	FirstRefusal(ctx context.Context, repo string, issue int, user string) (bool, error)
}

type permissions interface {
	Permission(ctx context.Context, installation int64, owner, repo, user string) (string, error)
}

type appInfo interface {
	BotLogin(ctx context.Context) (string, error)
	Invalidate(installation int64)
}

// Router turns verified deliveries into queue operations.
type Router struct {
	Prefix string
	Queue  queue
	Perms  permissions
	App    appInfo // nil when no App is configured: nothing is queued
	Log    *slog.Logger
	// Refusals limits refusal replies to one per user and issue per window;
	// nil replies to every refused command.
	Refusals refusalLimiter
	// Followups keeps feedback on Warden's PRs; nil turns follow-ups off.
	Followups feedbackStore
	// Dashboard queues what people do to a dashboard issue; nil ignores it.
	Dashboard dashboardQueue
	// Steer keeps writers' `/warden steer` guidance and plans awaiting
	// `/warden approve`; Runs tells whether a run is in progress. Nil
	// answers those commands as unavailable.
	Steer steerBox
	Runs  liveRuns
}

// Route decides what a delivery means. Errors are ErrMalformed or a failure
// of the queue (answered 503). Routes that decode the payload reject bad JSON
// as they decode it; the others check it here, so no body is scanned twice.
func (r *Router) Route(ctx context.Context, d Delivery) (Decision, error) {
	switch d.Event {
	case "ping":
		if !json.Valid(d.Payload) {
			return Decision{}, fmt.Errorf("%w: body is not valid JSON", ErrMalformed)
		}
		return ok("pong"), nil
	case "issues":
		return r.issues(ctx, d)
	case "issue_comment":
		return r.issueComment(ctx, d)
	case "installation", "installation_repositories":
		return r.installation(d)
	case "pull_request":
		return r.pullRequest(ctx, d)
	case "pull_request_review":
		return r.review(ctx, d)
	case "pull_request_review_comment":
		return r.reviewComment(ctx, d)
	case "check_suite", "check_run":
		return r.checks(ctx, d)
	case "status":
		return r.status(ctx, d)
	case "member", "organization":
		return r.membership(d)
	case "merge_group":
		return r.mergeGroup(ctx, d)
	case "branch_protection_rule", "repository_ruleset":
		return r.rulesChanged(ctx, d)
	}
	if !json.Valid(d.Payload) {
		return Decision{}, fmt.Errorf("%w: body is not valid JSON", ErrMalformed)
	}
	return ignored("event " + d.Event + " is not handled"), nil
}

func ok(reason string) Decision { return Decision{Code: http.StatusOK, Status: "ok", Reason: reason} }
func ignored(reason string) Decision {
	return Decision{Code: http.StatusOK, Status: "ignored", Reason: reason}
}
func queued(reason string) Decision {
	return Decision{Code: http.StatusAccepted, Status: "queued", Reason: reason}
}
func refused(reason string) Decision {
	return Decision{Code: http.StatusOK, Status: "refused", Reason: reason}
}

func decodePayload(d Delivery, v any) error {
	if err := json.Unmarshal(d.Payload, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, d.Event, err)
	}
	return nil
}

func unavailable(op string, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, op, err)
}

// fromBot reports whether sender is Warden itself. Without a known login we
// cannot tell, so the caller's permission gate still applies.
func (r *Router) fromBot(ctx context.Context, sender string) bool {
	// An App acts as "<slug>[bot]": any other login is not Warden, and
	// needs no GET /app to say so.
	if r.App == nil || !strings.HasSuffix(sender, "[bot]") {
		return false
	}
	login, err := r.App.BotLogin(ctx)
	return err == nil && login == sender
}

// canWrite is the permission gate: the sender must have write, maintain or
// admin on the repository; any error refuses (fail closed).
func (r *Router) canWrite(ctx context.Context, inst int64, owner, repo, user string) (bool, string) {
	if r.App == nil {
		return false, "no GitHub App is configured"
	}
	if inst == 0 {
		return false, "delivery has no installation"
	}
	perm, err := r.Perms.Permission(ctx, inst, owner, repo, user)
	if err != nil {
		r.Log.Warn("permission check failed; refusing", "repo", owner+"/"+repo, "user", user, "err", err, "audit", true)
		return false, "could not check permission"
	}
	if !canWritePerm(perm) {
		return false, fmt.Sprintf("%s has %s permission; write, maintain or admin is required", user, perm)
	}
	return true, ""
}

func canWritePerm(p string) bool { return p == "write" || p == "maintain" || p == "admin" }

func (r *Router) installation(d Delivery) (Decision, error) {
	var ev struct {
		Installation struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if r.App != nil && ev.Installation.ID != 0 {
		r.App.Invalidate(ev.Installation.ID)
	}
	return ok("installation cache invalidated"), nil
}
