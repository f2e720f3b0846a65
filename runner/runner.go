// Package runner runs queued tasks against GitHub: a pipeline attempt for
// each run task (Runner), and the quick status replies (StatusPoster).
package runner

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/github/gitdb"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// App is the GitHub App as the runner uses it (githubapp.App).
type App interface {
	Client(installation int64) *github.Client
	Token(ctx context.Context, installation int64) (string, error)
	BotLogin(ctx context.Context) (string, error)
	BotID(ctx context.Context, installation int64) (int64, error)
}

// Hosts builds the GitHub host of one issue.
type Hosts struct {
	App      App // nil without a GitHub App: every task is retried later
	Prefix   string
	Redactor *comments.Redactor
	// GitHubURL is GitHub's web root (WARDEN_GITHUB_URL): clones and pushes
	// go to <GitHubURL><owner>/<name>.git and nowhere else.
	GitHubURL string
	// Memo follows the status comment's writes for the lifecycle's notes.
	Memo comments.StatusMemo
	// Effects journals review requests (nil in tests that need none).
	Effects *effects.Journal

	signed gitdb.Remember // repositories whose branches require signed commits
}

// Host builds the GitHub host for one issue. The payload's clone URL is
// not used: the token goes only where the operator's configuration says
// GitHub is (CloneURL).
func (h *Hosts) Host(ctx context.Context, repo string, inst int64, issue int, _, base string) (*pipeline.GitHubHost, error) {
	if h.App == nil {
		return nil, fmt.Errorf("no GitHub App configured")
	}
	cloneURL, err := CloneURL(h.GitHubURL, repo)
	if err != nil {
		return nil, err
	}
	owner, name, _ := strings.Cut(repo, "/")
	login, err := h.App.BotLogin(ctx)
	if err != nil {
		return nil, err
	}
	client := h.App.Client(inst)
	poster := &comments.Poster{Client: client.Issues, BotLogin: login, Redactor: h.Redactor, Memo: h.Memo}
	if l, ok := h.App.(botIDLearner); ok {
		// The bot's user id (for the commit e-mail) comes with the answer to
		// the status comment, written before any commit: no GET /users.
		poster.Self = func(id int64) { l.LearnBotID(login, id) }
	}
	return &pipeline.GitHubHost{
		Client: client, Owner: owner, Name: name, Number: issue, Prefix: h.Prefix,
		BotLogin: login, CloneURL: cloneURL, Base: base, Poster: poster, GraphQL: true, Signed: &h.signed,
		Installation: inst, Effects: h.Effects,
		BotIDOf: func(ctx context.Context) (int64, error) { return h.App.BotID(ctx, inst) },
		Token:   func(ctx context.Context) (string, error) { return h.App.Token(ctx, inst) },
	}, nil
}

// botIDLearner is an App that takes its bot's user id from an answer
// (githubapp.App.LearnBotID).
type botIDLearner interface {
	LearnBotID(login string, id int64)
}

// Runner runs pipeline attempts for asynq tasks, reporting on GitHub
// (jobs.Pipeline).
type Runner struct {
	Hosts    *Hosts
	Pipeline *pipeline.Pipeline
	Locks    *jobs.Locks
	Log      *slog.Logger
	// Followups runs follow-up attempts on Warden's own PRs and is told
	// when a first attempt ends; nil leaves both out.
	Followups *followup.Runner
	IDs       *jobs.StatusIDs // the status comment the queued update wrote
}

// Run runs one attempt; GitHub failing before it starts makes it retryable.
func (r *Runner) Run(ctx context.Context, p jobs.RunPayload, at jobs.Attempt) jobs.Result {
	host, err := r.Hosts.Host(ctx, p.Repo, p.Installation, p.Issue, p.CloneURL, p.DefaultBranch)
	if err != nil {
		r.Log.Warn("cannot reach GitHub for task; will retry", "repo", p.Repo, "issue", p.Issue, "err", err)
		return jobs.Result{Record: retryable(err)}
	}
	token, err := r.Hosts.App.Token(ctx, p.Installation)
	if err != nil {
		return jobs.Result{Record: retryable(err)}
	}
	id, _ := asynq.GetTaskID(ctx)
	t := pipeline.Task{
		ID: id, Delivery: p.Delivery, Repo: p.Repo, RepoID: p.RepoID, Issue: p.Issue, Mode: p.Mode, Title: p.Title, Body: p.Body,
		CloneURL: host.CloneURL, DefaultBranch: p.DefaultBranch, Token: token, Installation: p.Installation, Sender: p.Sender,
		Deferrals: p.Deferrals, Depth: p.Depth, Final: at.Final,
		Triggered: p.Reason == jobs.ReasonLabel || p.Reason == jobs.ReasonRetry || p.Reason == jobs.ReasonDeferred || p.Reason == jobs.ReasonUnblock ||
			p.Reason == jobs.ReasonApprove || p.Reason == jobs.ReasonSteer,
		Approved: p.Reason == jobs.ReasonApprove,
	}
	host.Poster.Remember = true // the attempt is the only writer of its Warden comments
	host.StatusLock = StatusLock(r.Locks, r.Log, p.Repo, p.Issue)
	if r.IDs != nil {
		host.KnownStatus = func(ctx context.Context) int64 { id, _ := r.IDs.Get(ctx, p.Repo, p.Issue); return id }
	}
	if p.Reason == jobs.ReasonFollowup && r.Followups != nil {
		res := r.Followups.Run(ctx, host, t, p)
		return jobs.Result{Record: res.Record, DeferFor: res.DeferFor}
	}
	if r.Followups != nil {
		stop, err := r.Followups.Continue(ctx, host, &t, p)
		if err != nil {
			return jobs.Result{Record: retryable(err)}
		}
		if stop != nil { // a held branch: the run ends here, and says so like any attempt
			r.Log.Info("attempt finished", "repo", p.Repo, "issue", p.Issue, "outcome", stop.Record.Outcome,
				"failure_class", stop.Record.FailureClass, "pr", stop.Record.PR, "held", true)
			return jobs.Result{Record: stop.Record}
		}
	}
	res := r.Pipeline.Attempt(ctx, host, t)
	if r.Followups != nil {
		r.Followups.Ended(context.WithoutCancel(ctx), p, t.Resume)
		r.Followups.After(context.WithoutCancel(ctx), p, res.Record.PR)
	}
	return jobs.Result{Record: res.Record, DeferFor: res.DeferFor}
}

func retryable(err error) outcome.Record {
	return outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient, Summary: err.Error()}.Normalize()
}

// statusLockWait bounds waiting for the other writer of a status comment;
// a holder that died lets go when the lock's TTL passes.
const statusLockWait = 30 * time.Second

// StatusLock is pipeline.GitHubHost.StatusLock for the run of an issue.
// Waiting too long, or Redis failing, goes on unlocked: a doubled status
// comment is better than a stuck task.
func StatusLock(locks *jobs.Locks, log *slog.Logger, repo string, issue int) func(context.Context) func() {
	return func(ctx context.Context) func() {
		lk, err := locks.Wait(ctx, jobs.StatusKey(repo, issue), statusLockWait)
		if err != nil {
			log.Warn("status comment lock not taken", "repo", repo, "issue", issue, "err", err)
			return func() {}
		}
		return func() { lk.Release(context.WithoutCancel(ctx)) }
	}
}
