package lifecycle

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/followup"
	"github.com/warden-bot/warden/github/githubapp"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/webhooks"
)

// The randomized interleaving test of the PR state machine (#27): from a
// seed, webhooks (inline comments, their redeliveries, 5xx answers while
// queueing), follow-up runs killed at any step and recovered, human pushes
// and `/warden retry`, issue-level re-runs, check events and merge
// evaluations run against the real follow-up store, runner, lifecycle and
// queue on real Redis and the fake GitHub. #38 added GitHub's faults
// (POST 502s, secondary rate limits, mergeable null), feedback landing in
// the middle of an evaluation, a merge-queue third of the seeds (merges,
// removals), Redis forgetting the issue's PR, `/warden retry` on the issue,
// and the effects journal with its sweeper; then every run and PR task
// through a real jobs.Worker (its cancel flag, run lock, deferral and
// asynq's reading of its error, simworker_test.go), a writer's
// `/warden cancel` and `/warden retry` on the issue through the router
// (simcancel_test.go), and Redis restarts through a TCP proxy
// (simredis_test.go). After every step:
//   - never merged while feedback waits or runs (also feedback that came
//     during the evaluation), the branch is held or an issue run changes it;
//   - no inline comment answered twice; no merge call once merged;
//   - no push over a commit Warden did not write, nor onto a held branch;
//   - a writer's retry after the hold's last push hands the branch back;
//   - acknowledged feedback on an unheld branch has a follow-up queued;
//   - after a writer's cancel took effect, and until a writer's trigger
//     cleared it, no attempt of the issue starts and no run is deferred;
//
// and once the world is quiet (CI green on the last head): every comment
// answered exactly once (unless a human holds the branch), no PR busy, the
// issue labelled, no effect left unconfirmed after the sweeper's turn, no
// hand-back still owed, a canceled seed's feedback kept and answered
// after a writer's retry, a red head evaluated while free reported, and a
// green, unheld, idle PR merged, queued or evaluated (merge-queue seeds:
// merged or queued). The seed that broke an invariant is printed ("caught
// at seed N (k of M seeds)"), which test/mutants shows.
//
//	go test ./lifecycle -run TestInterleavings -sim.seeds=N -sim.from=S
//	go test ./lifecycle -run TestInterleavings -sim.seed=S   # replay one
var (
	simSeeds = flag.Int("sim.seeds", 200, "interleaving seeds to run")
	simFrom  = flag.Int64("sim.from", 1, "first seed")
	simSeed  = flag.Int64("sim.seed", 0, "replay this one seed")
	simSteps = flag.Int("sim.steps", 30, "steps per seed")
	// simOld replays a behaviour from before #27, to show the invariants
	// catch it: "forcepush" (an issue run ignores the open PR and pushes
	// from the base), "drain" (a follow-up deletes the feedback it takes).
	simOld = flag.String("sim.old", "", "replay a pre-#27 behaviour: forcepush | drain")
)

func TestInterleavings(t *testing.T) {
	if n := os.Getenv("WARDEN_SIM_SEEDS"); n != "" {
		fmt.Sscan(n, simSeeds)
	}
	seeds := []int64{}
	if *simSeed != 0 {
		seeds = append(seeds, *simSeed)
	} else {
		for i := range *simSeeds {
			seeds = append(seeds, *simFrom+int64(i))
		}
	}
	env := newSimEnv(t)
	start := time.Now()
	for k, seed := range seeds {
		if err := env.run(seed, *simSteps); err != nil {
			// The mutant tool prints this line: the seed count a bug needed.
			t.Fatalf("caught at seed %d (%d of %d seeds): %v\nreplay: go test ./lifecycle -run 'TestInterleavings$' -count=1 -sim.seed=%d -v", seed, k+1, len(seeds), err, seed)
		}
	}
	t.Logf("%d seeds (%d steps each), no invariant broken, in %s", len(seeds), *simSteps, time.Since(start).Round(time.Millisecond))
	t.Logf("exercised: %s", env.tally())
}

// simEnv is what every seed shares: the fake GitHub, the App and Redis.
type simEnv struct {
	t      *testing.T
	gh     *fakegithub.Server
	app    *githubapp.App
	client *github.Client
	bare   string
	be     *jobs.Backend
	stats  map[string]int // what the seeds exercised
	// Warden's Redis clients reach Redis through px (restarts,
	// simredis_test.go); the sim's own reads and requeues do not.
	px       *redisProxy
	direct   *redis.Client
	requeuer *asynq.Client
	inspect  *asynq.Inspector // the queues as the sim reads them, on direct
}

func newSimEnv(t *testing.T) *simEnv {
	gh := fakegithub.New()
	t.Cleanup(gh.Close)
	gh.AddInstallation(inst)
	bare, cloneURL := gitfixture.NewRepo(t, map[string]string{"README.md": "hello\n"})
	gh.AddRepo("Codertocat", "Hello-World", cloneURL, "main")
	gh.SetPermission(repo, "alice", "write")
	gh.SetPermission(repo, "bob", "write")
	app, err := githubapp.New(githubapp.Options{AppID: gh.AppID(), PrivateKey: gh.PrivateKeyPEM(), BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	addr, db := harness.RedisAddr(t), harness.RedisDB(t)
	px := newRedisProxy(t, addr)
	be, err := jobs.Open(fmt.Sprintf("redis://%s/%d", px.Addr(), db), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	direct := redis.NewClient(&redis.Options{Addr: addr, DB: db})
	requeuer := asynq.NewClient(asynq.RedisClientOpt{Addr: addr, DB: db})
	t.Cleanup(func() { direct.Close(); requeuer.Close() })
	return &simEnv{t: t, gh: gh, app: app, client: app.Client(inst), bare: bare, be: be, stats: map[string]int{},
		px: px, direct: direct, requeuer: requeuer, inspect: asynq.NewInspectorFromRedisClient(direct)}
}

// flakyQueue is the router's queue: the real one, failing enqueues on
// demand (GitHub then redelivers).
type flakyQueue struct {
	*jobs.Queue
	fail  func() bool
	after func(context.Context) // a run queued for a writer (simcancel_test.go)
}

func (f *flakyQueue) EnqueueRun(ctx context.Context, p jobs.RunPayload, o ...asynq.Option) (jobs.EnqueueResult, error) {
	if f.fail() {
		return 0, fmt.Errorf("injected 503")
	}
	res, err := f.Queue.EnqueueRun(ctx, p, o...)
	if err == nil && f.after != nil {
		f.after(ctx)
	}
	return res, err
}

// sim is one seed's world.
type sim struct {
	*simEnv
	rng      *rand.Rand
	issue    int
	pr       int
	branch   string
	q        *jobs.Queue
	store    *followup.Store
	life     *Lifecycle
	fu       *followup.Runner
	router   *webhooks.Router
	comments map[int64]bool // inline comments stored as feedback
	// hollow: comments a follow-up that changed nothing answered with its
	// outcome (Finish, no thread reply)
	hollow    map[int64]bool
	redeliver []delivery
	human     []string // commits pushed by people
	// handedOver: a person pushed and no writer has said `/warden retry`
	// since; the branch is theirs, so a merge now is behind their back.
	handedOver bool
	killed     []*asynq.TaskInfo // run tasks of killed workers, to recover
	wk         *simWork
	going      *issueRun // an issue run continuing the PR, under way
	clock      time.Time // GitHub's time of the last timed event
	release    []chan struct{}
	merged     bool
	checked    string // the branch head whose history check passed
	log        []string
	// #38's invariants (siminv_test.go, simqueue_test.go).
	broken      []string          // invariants a step broke
	holdSeen    bool              // the store held the branch for the latest person's push
	pushedAt    time.Time         // GitHub's time of the latest person's push
	mergedAfter int               // merge calls when the PR was merged (-1 before)
	checks      map[string]string // head → its check's conclusion
	looked      map[string]bool   // heads evaluated while free (unheld, idle)
	dropped     map[string]bool   // heads the merge queue removed
	wasHeld     bool
	retriedAt   time.Time // GitHub's time of the last writer's `/warden retry`
	queueMode   bool      // the base branch's rules require the merge queue
	app         *midEvalApp
	x           *simExtra // auto-merge, lost leases, red reports (simbind_test.go)
}

func (s *sim) fail(format string, a ...any) error {
	return fmt.Errorf(format+"\nsteps:\n  %s", append(a, strings.Join(s.log, "\n  "))...)
}

func (e *simEnv) run(seed int64, steps int) error {
	ctx := context.Background()
	s := &sim{simEnv: e, rng: rand.New(rand.NewSource(seed)), issue: int(seed % 100000), comments: map[int64]bool{}, hollow: map[int64]bool{},
		clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), mergedAfter: -1,
		checks: map[string]string{}, looked: map[string]bool{}, dropped: map[string]bool{}, app: &midEvalApp{App: e.app}}
	s.q = jobs.NewQueue(e.be)
	defer s.q.Close()
	defer s.q.Inspector().DeleteAllPendingTasks(jobs.QueueDefault)
	s.store = followup.NewStore(e.be.RDB)
	locks := jobs.NewLocks(e.be.RDB, jobs.RunLockTTL)
	s.life = &Lifecycle{App: s.app, Queue: s.q, Effects: effects.New(e.be.RDB), Links: jobs.NewLinks(e.be.RDB), Counter: jobs.NewCounter(e.be.RDB), Prefix: "warden",
		Redactor: comments.NewRedactor(), Log: quiet, MaxCheckFixes: 2, Followups: s.store, Locks: locks}
	s.fu = &followup.Runner{Store: s.store, Attempt: s.attempt, Next: s.q.EnqueueNext, Reevaluate: s.q.EnqueuePR, Prefix: "warden", Log: quiet, Lease: s.life.PushLease, Bound: s.life.Bound}
	s.router = &webhooks.Router{Prefix: "warden", Queue: &flakyQueue{Queue: s.q, fail: func() bool { return s.rng.Intn(5) == 0 }, after: s.triggered}, App: e.app, Log: quiet, Followups: s.store, Perms: writers{}}
	s.newWorker()
	defer func() {
		for _, c := range s.release {
			close(c)
		}
	}()
	s.open()
	defer s.gh.ClosePull(repo, s.pr, false) // the next seeds' reads skip it
	defer s.gh.ClearFaults()
	s.rules()
	defer s.gh.ClearRules(repo)
	for i := range steps {
		if err := s.step(ctx, i); err != nil {
			return err
		}
		if err := s.check(ctx); err != nil {
			return err
		}
	}
	return s.settle(ctx)
}

// open pushes the issue's branch and opens Warden's PR, as a first run.
func (s *sim) open() {
	s.branch = fmt.Sprintf("warden/%d-fix", s.issue)
	s.gh.AddIssue(repo, s.issue, "Fix it", "", "alice", "warden:maintenance", "warden:pr-open")
	gitfixture.Commit(s.t, s.bare, s.branch, map[string]string{"fix.txt": s.branch})
	pr, _, err := s.client.PullRequests.Create(context.Background(), "Codertocat", "Hello-World", &github.NewPullRequest{
		Title: github.String("Fix"), Head: github.String(s.branch), Base: github.String("main"),
		Body: github.String(fmt.Sprintf("Fixes #%d\n%s", s.issue, pipeline.PRMarker("warden", s.issue, "maintenance")))})
	if err != nil {
		s.t.Fatal(err)
	}
	s.pr = pr.GetNumber()
	s.fu.After(context.Background(), s.payload(), s.pr) // the first run records its PR
}

func (s *sim) payload() jobs.RunPayload {
	return jobs.RunPayload{Repo: repo, Installation: inst, Issue: s.issue, Mode: "maintenance", Reason: jobs.ReasonFollowup, PR: s.pr,
		CloneURL: s.gh.Repo(repo).CloneURL, DefaultBranch: "main"}
}

// head is the branch's head, read from its loose ref (no process per
// step) or, when packed, from git.
func (s *sim) head() string {
	if b, err := os.ReadFile(filepath.Join(s.bare, "refs", "heads", filepath.FromSlash(s.branch))); err == nil {
		return strings.TrimSpace(string(b))
	}
	return s.git("rev-parse", s.branch)
}

func (s *sim) git(args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", s.bare}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=sim", "GIT_AUTHOR_EMAIL=sim@example.com", "GIT_COMMITTER_NAME=sim", "GIT_COMMITTER_EMAIL=sim@example.com")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// commit adds an (empty) commit by who on the branch, with git plumbing:
// no clone per commit, so hundreds of seeds stay fast.
func (s *sim) commit(who string) string {
	parent := s.head()
	sha := s.git("commit-tree", parent+"^{tree}", "-p", parent, "-m", fmt.Sprintf("%s %d", who, s.rng.Int63()))
	s.git("update-ref", "refs/heads/"+s.branch, sha)
	return sha
}

func (s *sim) note(format string, a ...any) { s.log = append(s.log, fmt.Sprintf(format, a...)) }

func (s *sim) pull() fakegithub.Pull {
	for _, p := range s.gh.Pulls(repo) {
		if p.Number == s.pr {
			return p
		}
	}
	return fakegithub.Pull{}
}

func (s *sim) host() *pipeline.GitHubHost {
	return &pipeline.GitHubHost{Client: s.client, Owner: "Codertocat", Name: "Hello-World", Number: s.issue, Prefix: "warden",
		BotLogin: fakegithub.BotLogin, Poster: &comments.Poster{Client: s.client.Issues, BotLogin: fakegithub.BotLogin},
		Effects: s.life.Effects} // replies and pushes go through the journal, as cmd/bot wires it
}

// step runs one randomly chosen event or worker action.
func (s *sim) step(ctx context.Context, i int) error {
	switch r := s.rng.Intn(119); {
	case r < 22:
		s.inline(ctx, 0)
	case r < 30:
		if len(s.redeliver) > 0 {
			k := s.rng.Intn(len(s.redeliver))
			s.note("%d redeliver", i)
			s.deliver(ctx, s.redeliver[k])
		}
	case r < 62:
		return s.work(ctx, i, true)
	case r < 67:
		if len(s.killed) > 0 {
			ti := s.killed[0]
			s.note("%d recover killed task %s", i, ti.ID)
			s.recoverKilled(ctx, ti)
			s.killed = s.killed[1:]
		}
	case r < 73:
		if !s.merged {
			s.humanPush(ctx, i)
		}
	case r < 78:
		s.prRetry(ctx, i)
	case r < 83:
		s.review(ctx, i)
	case r < 94:
		s.checkEvent(ctx, i)
	case r < 100:
		s.issueRun(ctx, i)
	case r < 104:
		s.forget(ctx, i)
	case r < 110:
		s.queueStep(ctx, i)
	case r < 114:
		s.cancelCmd(ctx, i)
	case r < 117:
		s.issueRetryCmd(ctx, i)
	default:
		return s.restart(ctx, i)
	}
	return nil
}

type killKey struct{}

// attempt is the follow-up's pipeline: it pushes one commit onto the head
// it was given, under the PR's lease, and may die before or after.
func (s *sim) attempt(ctx context.Context, h pipeline.Host, t pipeline.Task) pipeline.Result {
	kill, _ := ctx.Value(killKey{}).(func())
	fh := h.(*pipeline.FollowupHost)
	if *simOld == "drain" { // the feedback is gone before the attempt acts
		if tk, err := s.store.Take(ctx, repo, s.pr); err == nil {
			_ = s.store.Finish(ctx, repo, s.pr, tk.Items)
		}
	}
	kill()
	if res, ok := s.deferral(ctx); ok {
		return res
	}
	release, err := fh.Lease(ctx)
	if err != nil {
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient}}
	}
	if s.head() != fh.Expect { // PushOnto's lease refuses
		release()
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Escalated, Summary: "the branch moved"}}
	}
	if s.rng.Intn(8) == 0 { // the model changed nothing: the feedback is answered by the outcome, the head stays
		release()
		for id := range s.comments {
			k := followup.Item{Kind: followup.KindInline, ID: id}.Key()
			if in, _ := s.direct.HExists(ctx, fmt.Sprintf("warden:followup:%s#%d:inflight", repo, s.pr), k).Result(); in {
				s.hollow[id] = true
			}
		}
		s.count("follow-up changed nothing")
		return pipeline.Result{Record: outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.Hollow, Summary: "the follow-up changed nothing on the branch"}}
	}
	sha := s.wardenPush(ctx, "a follow-up")
	fh.Pushed = sha
	_ = fh.OnPush(ctx, sha)
	release()
	kill()
	return pipeline.Result{Record: outcome.Record{Outcome: outcome.Completed}}
}

// issueRun is a run of the issue itself (a retry, a relabel, an unblock):
// it continues the open PR, or would start from the base.
func (s *sim) issueRun(ctx context.Context, i int) {
	if s.going != nil {
		s.endRun(ctx, i)
		return
	}
	s.writerRun(ctx)
	lock := s.runLock(ctx)
	if lock == nil {
		s.note("%d issue run: the issue's run lock is held by a task under way", i)
		s.count("issue run: bounced off the run lock")
		return
	}
	t := pipeline.Task{Repo: repo, Issue: s.issue}
	h := s.host()
	p := s.payload()
	p.Reason, p.PR = jobs.ReasonRetry, 0
	retry := s.rng.Intn(2) == 0 // a writer's `/warden retry` on the issue, else a relabel
	seen := s.holdSeen && s.handedOver
	if retry {
		p.RetryAt, _ = time.Parse(time.RFC3339, s.tick())
		s.retriedAt = p.RetryAt
		s.note("%d /warden retry on the issue", i)
		// Written after the person's push, it hands the branch back even
		// when the hold is recorded only later (a redelivered push event):
		// that hold is older than the retry, as on the PR (prRetry).
		s.handedOver, s.holdSeen = false, false
	}
	stop, err := s.fu.Continue(ctx, h, &t, p)
	if retry && seen && err == nil {
		s.handedBack(ctx, "issue")
	}
	if *simOld == "forcepush" {
		stop, err, t.Resume = nil, nil, nil
	}
	if t.Resume == nil || err != nil || stop != nil {
		defer lock.Release(ctx)
	}
	switch {
	case err != nil || stop != nil:
		s.note("%d issue run: nothing changed (%v)", i, err)
		s.count("issue run: nothing changed")
	case t.Resume != nil: // it pushes and ends at a later step
		s.going = &issueRun{p: p, resume: t.Resume, expect: h.Expect, lock: lock}
		s.note("%d issue run started on the PR", i)
		s.count("issue run continued the PR")
	case !s.merged:
		s.git("branch", "-f", s.branch, "main") // Release's force-push from the base
		s.wardenPush(ctx, "an issue run from the base")
		s.note("%d issue run force-pushed from the base", i)
	}
}

// issueRun is a run of the issue under way on its open PR.
type issueRun struct {
	p      jobs.RunPayload
	resume *pipeline.Resume
	expect string
	lock   *jobs.Lock // the issue's run lock, held to the end as the worker holds it
}

// runLock takes the issue's run lock for a step-driven issue run, as the
// worker takes it for a task: a worker-driven run of the issue cannot run
// beside it. Between steps a lock held is a dead holder's (lockExpires);
// the run's own lock lives as long as the run (a long TTL, on the direct
// client: the real run keeps refreshing it, through any restart).
func (s *sim) runLock(ctx context.Context) *jobs.Lock {
	locks := jobs.NewLocks(s.direct, time.Hour)
	key := jobs.IssueKey(repo, s.issue)
	lk, err := locks.Acquire(ctx, key)
	if errors.Is(err, jobs.ErrLocked) {
		s.lockExpires(ctx)
		lk, err = locks.Acquire(ctx, key)
	}
	if err != nil {
		return nil
	}
	return lk
}

// endRun is the run's Release (onto the head it started from only) and end.
func (s *sim) endRun(ctx context.Context, i int) {
	r := s.going
	s.going = nil
	if s.head() == r.expect {
		s.wardenPush(ctx, "an issue run")
	}
	s.fu.Ended(ctx, r.p, r.resume)
	r.lock.Release(ctx)
	s.note("%d issue run ended", i)
}

// check holds after every step.
func (s *sim) check(ctx context.Context) error {
	for _, c := range s.gh.ReviewComments(repo, s.pr) {
		if c.InReplyTo == 0 {
			continue
		}
		n := 0
		for _, d := range s.gh.ReviewComments(repo, s.pr) {
			if d.InReplyTo == c.InReplyTo {
				n++
			}
		}
		if n > 1 {
			var bodies []string
			for _, d := range s.gh.ReviewComments(repo, s.pr) {
				if d.InReplyTo == c.InReplyTo {
					bodies = append(bodies, fmt.Sprintf("%d %q", d.ID, d.Body))
				}
			}
			return s.fail("comment %d answered %d times: %s", c.InReplyTo, n, strings.Join(bodies, "; "))
		}
	}
	if err := s.broke(); err != nil {
		return err
	}
	if err := s.mergeCalls(); err != nil {
		return err
	}
	held, _ := s.store.Held(ctx, repo, s.pr)
	if s.wasHeld && held == "" { // handed back: every head is to be looked at again
		clear(s.looked)
	}
	s.wasHeld = held != ""
	head := s.head()
	if head == s.checked {
		return nil // the branch did not move: its history was checked
	}
	for _, h := range s.human {
		if exec.Command("git", "-C", s.bare, "merge-base", "--is-ancestor", h, head).Run() != nil {
			return s.fail("human commit %s was pushed over", h[:7])
		}
	}
	s.checked = head
	return nil
}

// settle lets the world go quiet: killed tasks recovered, failed
// deliveries redelivered, every queued task run; then the end invariants.
func (s *sim) settle(ctx context.Context) error {
	s.router.Queue = &flakyQueue{Queue: s.q, fail: func() bool { return false }, after: s.triggered}
	s.wk.settling = true
	if s.going != nil {
		s.endRun(ctx, -1)
	}
	for len(s.killed) > 0 {
		s.note("settle: recover killed task %s", s.killed[0].ID)
		s.recoverKilled(ctx, s.killed[0])
		s.killed = s.killed[1:]
	}
	for _, d := range s.redeliver {
		s.deliver(ctx, d)
	}
	if err := s.settleCancel(ctx); err != nil {
		return err
	}
	if !s.merged { // CI ends green on whatever head the world left
		s.checkDone(ctx, -1, "success")
	}
	for round := range 2 {
		if round == 1 { // the sweeper's turn: every unconfirmed effect re-driven
			s.wk.calm = true // GitHub answers everything after it: nothing new left unconfirmed
			if _, err := s.life.SweepEffects(ctx, time.Now().Add(time.Hour), 0); err != nil {
				return s.fail("sweep: %v", err)
			}
		}
		if err := s.drainGreen(ctx); err != nil {
			return err
		}
	}
	if err := s.sits(ctx); err != nil {
		return err
	}
	if err := s.lastRed(ctx); err != nil { // simbind_test.go
		return err
	}
	if owed, _ := s.store.HandBackOwed(ctx, repo, s.pr); owed && !s.isHeld(ctx) { // a newer hold supersedes it
		return s.fail("every delivery was answered, yet a released hold still owes its hand-back")
	}
	if by, _ := s.store.Held(ctx, repo, s.pr); by == "" && len(s.pendingEffects(ctx)) > 0 {
		return s.fail("effects unconfirmed after the sweeper's turn: %v", s.pendingEffects(ctx))
	}
	held, _ := s.store.Held(ctx, repo, s.pr)
	busy, _ := s.store.Busy(ctx, repo, s.pr)
	if held == "" && !s.merged && busy {
		return s.fail("the PR stays busy with nothing left to run")
	}
	if held == "" && !s.merged {
		replied := s.replied()
		for id := range s.comments {
			if !replied[id] {
				return s.fail("comment %d never answered", id)
			}
		}
	}
	for _, l := range s.gh.Labels(repo, s.issue) {
		if strings.HasPrefix(l, "warden:") {
			return nil
		}
	}
	return s.fail("issue #%d ends without a Warden label", s.issue)
}

// drain runs what the quiet world has queued, checking after each task.
func (s *sim) drain(ctx context.Context) error {
	for range 60 {
		if err := s.work(ctx, -1, false); err != nil {
			return err
		}
		if err := s.check(ctx); err != nil {
			return err
		}
	}
	return nil
}

// drainGreen drains the queues, and CI ends green on each head Warden
// pushed meanwhile (a follow-up answering the last feedback): the PR's
// last head is judged too, not left without CI, where sits could not
// tell a PR Warden stranded from one still waiting for its checks.
func (s *sim) drainGreen(ctx context.Context) error {
	for range 3 {
		if err := s.drain(ctx); err != nil {
			return err
		}
		if s.merged || s.checks[s.head()] != "" {
			return nil
		}
		s.checkDone(ctx, -1, "success")
	}
	return nil
}

// replied: comments answered in their thread, or by the outcome of a
// follow-up that changed nothing.
func (s *sim) replied() map[int64]bool {
	out := maps.Clone(s.hollow)
	for _, c := range s.gh.ReviewComments(repo, s.pr) {
		out[c.InReplyTo] = true
	}
	return out
}

func (s *sim) isHeld(ctx context.Context) bool {
	by, _ := s.store.Held(ctx, repo, s.pr)
	return by != ""
}

// writers answers alice and bob as writers (the fake's permissions).
type writers struct{}

func (writers) Permission(_ context.Context, _ int64, _, _, user string) (string, error) {
	if user == "alice" || user == "bob" {
		return "write", nil
	}
	return "read", nil
}
