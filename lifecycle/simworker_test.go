package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/pipeline"
)

// The interleaving test's worker (#38): every run and PR task goes through
// a real jobs.Worker (its cancel flag, run lock and deferral) by its mux,
// and the handler's error is read as asynq reads it: nil is done, a
// RevokeTask or SkipRetry drops the task, anything else retries it under
// its own id until its MaxRetry is spent (then asynq archives it). The
// sim's clock stays still except for scheduled tasks, which run as if
// their delay had passed: a cancel flag whose TTL is shorter expires first
// (the one TTL the sim models). A killed run leaves its run lock held; the
// lock expires (30 s, before asynq's lease recovery) when the task is
// recovered, or when a task bouncing off it is retried (asynq's backoff
// outlasts the TTL; so does a lock whose release a Redis restart lost).

// simWork is one seed's worker and what the sim tracks of it.
type simWork struct {
	mux     *asynq.ServeMux
	retries map[string]int // task id → retries asynq counted
	cut     int            // the next handler's Redis restart (simredis_test.go); < 0: none
	dirty   bool           // a restart happened since the last cancel took effect
	// canceled: a writer's `/warden cancel` took effect (its flag was seen
	// set) and no writer's trigger has cleared it since; no attempt of the
	// issue may start (simcancel_test.go).
	canceled bool
	settling bool // the world goes quiet: no writer cancels mid-run
	calm     bool // after the sweeper's last turn: no GitHub faults
}

func (s *sim) newWorker() {
	w := &jobs.Worker{Pipeline: simPipeline{s}, Lifecycle: s.life, Flags: jobs.NewFlags(s.be.RDB),
		Locks: s.life.Locks, Queue: s.q, Log: quiet}
	s.wk = &simWork{mux: w.Mux(), retries: map[string]int{}, cut: -1}
}

// work runs one queued task as a worker would; a run may be killed.
func (s *sim) work(ctx context.Context, i int, kills bool) error {
	var tasks []*asynq.TaskInfo
	for _, qn := range []string{jobs.QueueDefault, jobs.QueueCritical} {
		p, _ := s.q.Inspector().ListPendingTasks(qn)
		sc, _ := s.q.Inspector().ListScheduledTasks(qn) // the fake clock: any delay has passed
		tasks = append(append(tasks, p...), sc...)
	}
	if len(tasks) == 0 {
		return nil
	}
	ti := tasks[s.rng.Intn(len(tasks))]
	_ = s.q.Inspector().DeleteTask(ti.Queue, ti.ID)
	switch ti.Type {
	case jobs.TypeRun:
		var p jobs.RunPayload
		_ = json.Unmarshal(ti.Payload, &p)
		if p.Issue == s.issue {
			s.note("%d run task %s (%s)", i, ti.ID, p.Reason)
			s.delayPassed(ctx, ti)
			s.runTask(ctx, ti, kills)
		}
	case jobs.TypePR:
		var p jobs.PRPayload
		_ = json.Unmarshal(ti.Payload, &p)
		if p.PR != s.pr && p.PR != 0 {
			return nil
		}
		return s.evaluate(ctx, i, ti, p)
	}
	return nil
}

// evaluate runs a PR task through the worker and checks a merge it made.
func (s *sim) evaluate(ctx context.Context, i int, ti *asynq.TaskInfo, p jobs.PRPayload) error {
	busy, _ := s.store.Busy(ctx, repo, s.pr)
	held, _ := s.store.Held(ctx, repo, s.pr)
	if !s.wk.calm {
		s.faults(i)
	}
	err := s.watchEval(ctx, p, busy, held, func() error { // simbind_test.go
		var err error
		s.outage(func() { err = s.wk.mux.ProcessTask(ctx, asynq.NewTask(ti.Type, ti.Payload)) })
		return err
	})
	s.app.hook = nil
	after, _ := s.store.Busy(ctx, repo, s.pr)
	s.note("%d evaluate (%s) busy=%v held=%q err=%v", i, p.Action, busy, held, err)
	s.count("evaluation")
	if s.ended(ctx, ti, err) && !busy && held == "" {
		s.looked[s.head()] = true
	}
	if pl := s.pull(); pl.Merged && !s.merged {
		s.merged = true
		s.count("merged")
		if busy || after || held != "" || s.handedOver || s.going != nil {
			return s.fail("merged while feedback waited or ran (busy=%v, after the evaluation %v), the branch was held (%q), a person's push was not handed back (%v) or an issue run was changing it (%v)", busy, after, held, s.handedOver, s.going != nil)
		}
	}
	return nil
}

// runTask hands a run task to the worker; a kill leaves its goroutine
// blocked for good, as a dead worker: nothing after the kill point runs,
// its run lock stays held and its context ends (the lock's keeper stops).
func (s *sim) runTask(ctx context.Context, ti *asynq.TaskInfo, kills bool) {
	done, died, never := make(chan error, 1), make(chan struct{}), make(chan struct{})
	kill := func() {
		if kills && s.rng.Intn(4) == 0 {
			close(died)
			<-never
		}
	}
	rctx, stop := context.WithCancel(context.WithValue(ctx, killKey{}, kill))
	defer stop()
	var p jobs.RunPayload
	_ = json.Unmarshal(ti.Payload, &p)
	next := fmt.Sprintf("%s:deferred:%d", jobs.RunTaskID(repo, s.issue), p.Deferrals+1) // deferRun's id
	before, clean := s.scheduled(next), s.wk.cut < 0
	s.outage(func() {
		go func() { done <- s.wk.mux.ProcessTask(rctx, asynq.NewTask(ti.Type, ti.Payload)) }()
		select {
		case err := <-done:
			s.ended(ctx, ti, err)
			if clean {
				s.deferredAfterCancel(next, before)
			}
		case <-died:
			s.note("  worker killed")
			s.count("worker killed")
			s.killed = append(s.killed, ti)
		}
	})
}

// recoverKilled is asynq's lease recovery of a killed task: its run lock
// expired first; the recovery counts as a retry.
func (s *sim) recoverKilled(ctx context.Context, ti *asynq.TaskInfo) {
	s.lockExpires(ctx)
	if s.wk.retries[ti.ID]++; s.wk.retries[ti.ID] > ti.MaxRetry {
		s.note("  killed task %s archived: its retries are spent", ti.ID)
		s.count("task archived")
		return
	}
	s.runTask(ctx, ti, false)
}

// lockExpires is the issue's run lock reaching its TTL. Between steps no
// handler lives but a killed one, so a lock held then is a dead holder's:
// a killed task's, or one whose release a Redis restart lost; or the
// step-driven issue run's, which lives (sim.runLock).
func (s *sim) lockExpires(ctx context.Context) {
	if s.going != nil {
		return // the step-driven issue run holds it, alive
	}
	if n, _ := s.direct.Del(ctx, "warden:lock:"+jobs.IssueKey(repo, s.issue)).Result(); n > 0 {
		s.note("  the run lock of a dead holder expired")
	}
}

// ended reads the handler's error as asynq does and reports success.
func (s *sim) ended(ctx context.Context, ti *asynq.TaskInfo, err error) bool {
	switch {
	case err == nil:
		delete(s.wk.retries, ti.ID)
		return true
	case errors.Is(err, asynq.RevokeTask), errors.Is(err, asynq.SkipRetry):
		delete(s.wk.retries, ti.ID)
		s.note("  task %s dropped: %v", ti.ID, err)
		s.count("task dropped")
		return false
	}
	if s.wk.retries[ti.ID]++; s.wk.retries[ti.ID] > ti.MaxRetry {
		s.note("  task %s archived after %d retries: %v", ti.ID, ti.MaxRetry, err)
		s.count("task archived")
		return false
	}
	if errors.Is(err, jobs.ErrLocked) {
		s.lockExpires(ctx) // the retry's backoff outlasts a dead holder's lock
	}
	s.count("task retried")
	t := asynq.NewTask(ti.Type, ti.Payload)
	_, qerr := s.requeuer.EnqueueContext(ctx, t, asynq.TaskID(ti.ID), asynq.Queue(ti.Queue), asynq.MaxRetry(ti.MaxRetry))
	if errors.Is(qerr, asynq.ErrTaskIDConflict) {
		qerr = nil // a newer copy took the id while it ran: that one runs
	}
	s.note("  task %s retried (%d): %v (requeue: %v)", ti.ID, s.wk.retries[ti.ID], err, qerr)
	return false
}

// delayPassed is the sim's clock for a scheduled task: a cancel flag that
// expires before the delay passes is gone when the task starts.
func (s *sim) delayPassed(ctx context.Context, ti *asynq.TaskInfo) {
	delay := time.Until(ti.NextProcessAt)
	if ti.State != asynq.TaskStateScheduled || delay <= 0 {
		return
	}
	key := "warden:cancel:" + jobs.IssueKey(repo, s.issue)
	if ttl, err := s.direct.PTTL(ctx, key).Result(); err == nil && ttl > 0 && ttl < delay {
		s.direct.Del(ctx, key)
		s.note("  the cancel flag expired during the %s delay", delay.Round(time.Minute))
	}
}

// simPipeline is the worker's pipeline: follow-ups through the real
// follow-up runner (with the sim's attempt), an issue-level run through
// the sim's issue-run path.
type simPipeline struct{ s *sim }

func (sp simPipeline) Run(ctx context.Context, p jobs.RunPayload, _ jobs.Attempt) jobs.Result {
	s := sp.s
	s.attemptStarts(p)
	if p.Reason == jobs.ReasonFollowup {
		if p.PR != s.pr {
			return jobs.Result{Record: outcome.Record{Outcome: outcome.Completed}}
		}
		s.count("follow-up run")
		res := s.fu.Run(ctx, s.host(), pipeline.Task{Repo: repo, Issue: s.issue, Mode: "maintenance", Deferrals: p.Deferrals}, p)
		return jobs.Result{Record: res.Record, DeferFor: res.DeferFor}
	}
	s.count("issue task run")
	return s.issueTask(ctx, p)
}

// issueTask is an issue-level run as runner.Runner does it: continue the
// open PR (or stop on a held one), push, end, and queue what feedback
// waits.
func (s *sim) issueTask(ctx context.Context, p jobs.RunPayload) jobs.Result {
	t, h := pipeline.Task{Repo: repo, Issue: s.issue}, s.host()
	stop, err := s.fu.Continue(ctx, h, &t, p)
	if err != nil {
		return jobs.Result{Record: outcome.Record{Outcome: outcome.Retryable, FailureClass: outcome.Transient}}
	}
	if stop != nil {
		return jobs.Result{Record: stop.Record}
	}
	switch {
	case t.Resume != nil && s.head() == h.Expect:
		s.wardenPush(ctx, "an issue task")
	case t.Resume == nil && !s.merged && s.pull().State == "open":
		s.git("branch", "-f", s.branch, "main") // Release's force-push from the base
		s.wardenPush(ctx, "an issue task from the base")
	}
	bg := context.WithoutCancel(ctx)
	s.fu.Ended(bg, p, t.Resume)
	s.fu.After(bg, p, s.pr)
	return jobs.Result{Record: outcome.Record{Outcome: outcome.Completed, PR: s.pr}}
}

// deferral is the sim's attempt asking to wait (a dependency's answer,
// deferErr in the pipeline) before it pushes, up to MaxDefer; a writer's
// cancel sometimes lands while the run is under way, before it defers.
func (s *sim) deferral(ctx context.Context) (pipeline.Result, bool) {
	if s.rng.Intn(8) != 0 {
		return pipeline.Result{}, false
	}
	if !s.wk.settling && s.rng.Intn(2) == 0 {
		s.note("  a writer cancels while the follow-up runs")
		s.cancelCmd(ctx, -1)
	}
	d := []time.Duration{10 * time.Minute, 90 * time.Minute, jobs.MaxDefer}[s.rng.Intn(3)]
	s.note("  the follow-up defers for %s", d)
	s.count("follow-up deferred")
	return pipeline.Result{Record: outcome.Record{Outcome: outcome.Deferred, FailureClass: outcome.Transient}, DeferFor: d}, true
}
