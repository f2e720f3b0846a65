package webhooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/warden-bot/warden/followup/steer"
	"github.com/warden-bot/warden/jobs"
)

// steerBox keeps writers' guidance and the plans awaiting approval (steer.Store).
type steerBox interface {
	Add(ctx context.Context, repo string, issue int, n steer.Note) error
	Awaiting(ctx context.Context, repo string, issue int) (bool, error)
	Discard(ctx context.Context, repo string, issue int) (bool, error)
}

// liveRuns tells whether an issue has a run queued or running (jobs.Queue).
type liveRuns interface {
	Live(ctx context.Context, repo string, issue int) (bool, error)
}

// steer keeps a writer's guidance for the issue's run: the running one
// reads it at its next step, a plan awaiting approval is made again with
// it, and with no run it waits for the next attempt. The caller checked
// that the sender may write.
func (r *Router) steer(ctx context.Context, ic issueContext, raw, delivery string) (Decision, error) {
	if r.Steer == nil || r.Runs == nil {
		return r.reply(ctx, ic, "refused", fmt.Sprintf("`/%s steer` is not available on this Warden.", r.Prefix))
	}
	text, err := steer.Clean(raw)
	if err != nil {
		return r.reply(ctx, ic, "refused", fmt.Sprintf("@%s `/%s steer <text>` needs text Warden can pass on: %v. Nothing was kept.", ic.sender, r.Prefix, err))
	}
	awaiting, err := r.Steer.Awaiting(ctx, ic.fullName(), ic.issue.Number)
	if err != nil {
		return Decision{}, unavailable("read awaiting plan", err)
	}
	mode, ambiguous := r.issueMode(ic.issue)
	if awaiting && (mode == "" || ambiguous) {
		return r.reply(ctx, ic, "refused", r.needsOneMode("steer"))
	}
	err = r.Steer.Add(ctx, ic.fullName(), ic.issue.Number, steer.Note{Author: ic.sender, Text: text})
	if errors.Is(err, steer.ErrFull) {
		return r.reply(ctx, ic, "refused", fmt.Sprintf("@%s %d notes already wait for this issue's run; this one was not kept.", ic.sender, steer.MaxNotes))
	}
	if err != nil {
		return Decision{}, unavailable("keep guidance", err)
	}
	r.Log.Info("guidance kept", "repo", ic.fullName(), "issue", ic.issue.Number, "user", ic.sender, "bytes", len(text), "awaiting", awaiting)
	if awaiting {
		return r.replan(ctx, ic, mode, delivery)
	}
	live, err := r.Runs.Live(ctx, ic.fullName(), ic.issue.Number)
	if err != nil {
		return Decision{}, unavailable("read run state", err)
	}
	if live {
		return r.reply(ctx, ic, "ok", fmt.Sprintf("@%s Warden passes your guidance to the running attempt at its next step.", ic.sender))
	}
	return r.reply(ctx, ic, "ok", fmt.Sprintf("@%s No run of this issue is in progress: Warden keeps your guidance for the next attempt.", ic.sender))
}

// replan drops the plan awaiting approval and queues a run that plans
// again, reading the guidance just kept.
func (r *Router) replan(ctx context.Context, ic issueContext, mode, delivery string) (Decision, error) {
	if _, err := r.Steer.Discard(ctx, ic.fullName(), ic.issue.Number); err != nil {
		return Decision{}, unavailable("discard awaiting plan", err)
	}
	dec, err := r.queueIssue(ctx, ic, mode, jobs.ReasonSteer, delivery)
	if err != nil || dec.Status == "refused" {
		return dec, err
	}
	return r.reply(ctx, ic, dec.Status, fmt.Sprintf("@%s Warden plans again with your guidance.", ic.sender))
}

// approve continues the issue's run with the plan awaiting approval. The
// caller checked that the sender may write.
func (r *Router) approve(ctx context.Context, ic issueContext, delivery string) (Decision, error) {
	if r.Steer == nil {
		return r.reply(ctx, ic, "refused", fmt.Sprintf("`/%s approve` is not available on this Warden.", r.Prefix))
	}
	awaiting, err := r.Steer.Awaiting(ctx, ic.fullName(), ic.issue.Number)
	if err != nil {
		return Decision{}, unavailable("read awaiting plan", err)
	}
	if !awaiting {
		return r.reply(ctx, ic, "refused", fmt.Sprintf("@%s No plan of this issue awaits approval.", ic.sender))
	}
	mode, ambiguous := r.issueMode(ic.issue)
	if mode == "" || ambiguous {
		return r.reply(ctx, ic, "refused", r.needsOneMode("approve"))
	}
	return r.queueIssue(ctx, ic, mode, jobs.ReasonApprove, delivery)
}

// dropAwaiting is a cancel of an issue whose run stopped for approval: the
// plan is dropped and the issue shows the cancel as for a queued task.
func (r *Router) dropAwaiting(ctx context.Context, ic issueContext, why string) (Decision, error) {
	if r.Steer == nil {
		return ignored("nothing to cancel"), nil
	}
	dropped, err := r.Steer.Discard(ctx, ic.fullName(), ic.issue.Number)
	if err != nil {
		return Decision{}, unavailable("discard awaiting plan", err)
	}
	if !dropped {
		return ignored("nothing to cancel"), nil
	}
	mode, _ := r.issueMode(ic.issue)
	st := jobs.StatusPayload{Repo: ic.fullName(), Installation: ic.inst, Issue: ic.issue.Number, Mode: mode, State: "canceled", Note: why}
	if err := r.Queue.EnqueueStatus(ctx, st); err != nil {
		return Decision{}, unavailable("enqueue status", err)
	}
	return ok("plan awaiting approval dropped"), nil
}

func (r *Router) needsOneMode(verb string) string {
	return fmt.Sprintf("`/%s %s` needs exactly one of the labels `%s:maintenance` or `%s:evolution` on the issue.", r.Prefix, verb, r.Prefix, r.Prefix)
}
