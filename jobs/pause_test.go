package jobs

import (
	"context"
	"errors"
	"testing"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/supervisor"
)

// Three failures in five minutes trip the detector only when they are one
// installation's: another tenant's failures do not add up with them
// (issue 17: any three anywhere paused everyone).
func TestSystemicFailuresCountPerInstallation(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	det := &supervisor.Systemic{Log: NewFailureLog(b.RDB)}
	observe := func(scope, task string) bool {
		v, err := det.Observe(ctx, supervisor.Failure{Task: task, Scope: scope, Fingerprint: "f"})
		if err != nil {
			t.Fatal(err)
		}
		return v.Tripped
	}
	if observe("1:acme/calc", "acme/calc#1") || observe("1:acme/calc", "acme/calc#2") || observe("2:beta/app", "beta/app#1") {
		t.Fatal("tripped on failures of two installations")
	}
	if !observe("1:acme/web", "acme/web#3") {
		t.Fatal("three failures of installation 1 did not trip")
	}
}

// A paused installation's runs wait without spending a retry; another
// installation's run goes on; resuming one installation leaves the other
// paused.
func TestPauseAndResumeAreScopedToOneInstallation(t *testing.T) {
	b := testBackend(t)
	ctx := context.Background()
	ran := &scripted{rec: outcome.Record{Outcome: outcome.Completed}}
	w := newTestWorker(t, b, ran)
	if err := w.Queue.Pause(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Queue.Pause(ctx, 3); err != nil {
		t.Fatal(err)
	}
	p := payload(310) // installation 1
	err := w.HandleRun(ctx, runTask(t, p))
	if !errors.Is(err, ErrPaused) || isFailure(err) {
		t.Fatalf("paused installation's run: %v (failure=%v)", err, isFailure(err))
	}
	other := payload(311)
	other.Repo, other.Installation = "beta/app", 2
	if err := w.HandleRun(ctx, runTask(t, other)); err != nil {
		t.Fatalf("another installation's run: %v", err)
	}
	if err := w.Queue.Resume(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if paused, _ := w.Flags.Paused(ctx, 1); !paused {
		t.Fatal("resuming installation 3 resumed installation 1")
	}
	if err := w.Queue.Resume(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.HandleRun(ctx, runTask(t, p)); err != nil {
		t.Fatalf("after resume: %v", err)
	}
}
