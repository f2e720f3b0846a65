package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/warden-bot/warden/agent"
	"github.com/warden-bot/warden/environment"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/modes"
	"github.com/warden-bot/warden/observe/transcript"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/trusted"
)

// attempt is the state of one run through the stages.
type attempt struct {
	p    *Pipeline
	host Host
	t    Task
	log  *slog.Logger
	tr   *tracker

	wt      *workspace.Worktree
	in      *trusted.Inputs // the default branch's inputs (package trusted)
	cfg     modes.Config
	env     *environment.Env // the image, commands, setup and baseline
	policy  modes.Policy
	prior   []outcome.Record
	session Session
	spent   agent.Usage // of sessions replaced by a fresh start

	plan     agent.Plan
	files    []string // files the change touched
	review   agent.Review
	missing  string // what the last review said is missing
	release  ReleaseResult
	output   string // the last tool output worth quoting
	outTitle string
	pctx     *planContext // the planner's repository view, comments and reads
	tests    *verdict     // the last test run, judged against the baseline
	// knownFlaky are flaky tests an earlier task on the repository reported.
	knownFlaky map[string]bool
	tx         *transcript.Log // what the attempt did, for the Warden check run (transcript.go)
	// fetched waits for the mirror's fetch setup started (prefetch.go) and
	// reports whether it succeeded; nil once prepare has used it.
	fetched func() bool

	guidance []outcome.Guidance // writers' `/warden steer` notes, in arrival order (steer.go)
	approved bool               // the plan is one a writer approved (approval.go)
	awaiting bool               // the attempt stopped for plan approval
}

// ending is a decision that ends an attempt without a failure in the usual
// sense: the planner decided to decompose, defer, block or escalate.
type ending struct{ rec outcome.Record }

func (e *ending) Error() string { return fmt.Sprintf("%s: %s", e.rec.Outcome, e.rec.Summary) }

func (a *attempt) run(ctx context.Context) Result {
	defer a.env.ReleaseImage()
	err := a.setup(ctx)
	if err == nil {
		err = a.supervised(ctx)
	}
	defer a.env.CloseBaseline()
	return a.result(ctx, withHTTPStatus(err))
}

// setup re-reads the issue, marks it running, prepares the worktree and reads
// the repository's configuration from it.
func (a *attempt) setup(ctx context.Context) error {
	a.prefetch(ctx)
	defer a.awaitFetch() // an attempt that ends here leaves no git running
	info, err := a.host.Issue(ctx)
	if err != nil {
		return err
	}
	if !info.Open {
		return &outcome.Error{Class: outcome.Canceled, Msg: "the issue is closed"}
	}
	if a.t.Triggered && !hasTrigger(info.Labels, a.p.Prefix) { // removed while the task waited
		return &outcome.Error{Class: outcome.Canceled, Msg: "the trigger label was removed"}
	}
	a.t.Title, a.t.Body = a.vettedText(ctx, info)
	// A sub-issue relabelled by hand keeps its depth: the marker can only
	// deepen what the payload says, so a forged one only restricts Warden.
	a.t.Depth = max(a.t.Depth, markedDepth(info.Body, a.p.Prefix))
	if a.prior, err = a.host.PriorOutcomes(ctx); err != nil {
		a.log.Warn("prior outcomes not read", "err", err)
	}
	if a.t.Attempt == 0 {
		a.t.Attempt = 1
		for _, r := range a.prior {
			a.t.Attempt = max(a.t.Attempt, r.Attempt+1)
		}
		a.tr.setAttempt(a.t.Attempt)
	}
	if err := a.host.State(ctx, StateRunning); err != nil {
		a.log.Warn("state label not set", "err", err)
	}
	a.tr.push(ctx)
	return a.prepare(ctx)
}

// prepare creates the task's worktree, reads the repository's
// configuration from it and starts the model session there.
func (a *attempt) prepare(ctx context.Context) error {
	start := time.Now()
	var err error
	req := workspace.PrepareRequest{
		Repo: a.t.Repo, RepoID: a.t.RepoID, CloneURL: a.t.CloneURL, Token: a.t.Token, BaseBranch: a.t.DefaultBranch,
		Branch: a.branch(), TaskKey: taskKey(a.t), Fetched: a.awaitFetch(),
	}
	if f := a.t.Followup; f != nil { // the PR's own branch, from its head
		req.Branch, req.Start = f.Branch, f.HeadSHA
	} else if r := a.t.Resume; r != nil { // an open PR: continue it
		req.Branch, req.Start = r.Branch, r.HeadSHA
	}
	a.wt, err = a.p.Workspace.Prepare(ctx, req)
	if err != nil {
		return fmt.Errorf("prepare worktree: %w", err)
	}
	a.log.Info("worktree prepared", "duration_ms", time.Since(start).Milliseconds())
	if err := a.loadInputs(ctx); err != nil {
		return err
	}
	if err := a.prepareEnvironment(ctx); err != nil {
		return err
	}
	budget := a.cfg.BudgetUSD
	if a.session != nil { // a fresh start after a corrupt worktree keeps the bill
		a.spent = a.spent.Add(a.session.Usage())
		budget = max(budget-a.spent.CostUSD, 0.0001)
	}
	if a.p.NewTaskSession != nil {
		a.session, err = a.p.NewTaskSession(a.t, a.wt.Tree(), a.cfg.BudgetUSD) // the ledger holds what earlier sessions spent
	} else {
		a.session, err = a.p.NewSession(a.wt.Tree(), a.t.Repo, budget)
	}
	a.observeAgent(ctx)
	return err
}

// usage is what the attempt's model sessions cost.
func (a *attempt) usage() agent.Usage {
	if a.session == nil {
		return a.spent
	}
	return a.spent.Add(a.session.Usage())
}

// loadInputs reads what decides how the attempt runs (its configuration,
// image, commands and instruction files) from the default branch's head
// through package trusted, for first attempts, retries continuing a PR and
// follow-ups alike (CONTRACT §13): the worktree and a PR's head hold
// model-written text, which must not set the guards, the image or the
// setup command, nor speak as the repository's instructions.
func (a *attempt) loadInputs(ctx context.Context) error {
	in, err := trusted.Read(ctx, a.wt.BaseGit, a.wt.BaseTip, a.p.DefaultImage)
	var bad *trusted.ConfigError
	switch {
	case errors.As(err, &bad):
		return &outcome.Error{Class: outcome.Deterministic, Stage: StagePlan, Msg: bad.Error()}
	case err != nil:
		return fmt.Errorf("read the default branch's inputs: %w", err)
	}
	for _, note := range in.Notes {
		a.log.Warn("input on the default branch not used", "note", note)
	}
	a.in, a.cfg = in, in.Config
	a.policy = a.cfg.Policy(modes.Mode(a.t.Mode))
	if a.p.OnConfig != nil {
		a.p.OnConfig(ctx, a.t, a.cfg)
	}
	return nil
}

func taskKey(t Task) string {
	return fmt.Sprintf("%s-%d", sanitizeKey(t.Repo), t.Issue)
}

func sanitizeKey(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// markedDepth reads the depth from a sub-issue's hidden parent marker: the
// last one, which Warden appends after the model's (neutralised) text.
func markedDepth(body, prefix string) int {
	i := strings.LastIndex(body, "<!-- "+prefix+":parent ")
	if i < 0 {
		return 0
	}
	rest := body[i+len("<!-- "+prefix+":parent "):]
	end := strings.Index(rest, " -->")
	if end < 0 {
		return 0
	}
	var m struct {
		Depth int `json:"depth"`
	}
	if json.Unmarshal([]byte(rest[:end]), &m) != nil || m.Depth < 0 {
		return 0
	}
	return min(m.Depth, 100)
}
