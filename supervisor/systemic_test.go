package supervisor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// memLog is a FailureLog in memory.
type memLog struct {
	mu   sync.Mutex
	fs   []Failure
	fail error
}

func (m *memLog) Record(_ context.Context, f Failure, since time.Time) ([]Failure, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	m.fs = append(m.fs, f)
	var keep []Failure
	for _, r := range m.fs {
		if !r.At.Before(since) {
			keep = append(keep, r)
		}
	}
	m.fs = keep
	return append([]Failure(nil), keep...), nil
}

func TestSystemicTripsOnThreeDistinctTasksInWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := &Systemic{Log: &memLog{}}
		observe := func(task, fp string) Verdict {
			v, err := s.Observe(ctx, Failure{Task: task, Scope: "acme/calc", Fingerprint: fp})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		for _, task := range []string{"a#1", "a#1", "a#2"} { // the same task twice counts once
			if observe(task, "x").Tripped {
				t.Fatal("tripped before three distinct tasks")
			}
		}
		time.Sleep(5*time.Minute + time.Second) // a#1 and a#2 leave the window
		if observe("a#3", "z").Tripped || observe("a#4", "z").Tripped {
			t.Fatal("failures outside the window still counted")
		}
		time.Sleep(4 * time.Minute)
		v := observe("a#5", "z")
		if !v.Tripped || len(v.Recent) != 3 {
			t.Fatalf("verdict = %+v, want tripped with three recent failures", v)
		}
	})
}

func TestSystemicThresholdAndErrors(t *testing.T) {
	log := &memLog{}
	s := &Systemic{Log: log, Threshold: 1, Window: time.Second}
	if v, err := s.Observe(context.Background(), Failure{Task: "a#1"}); err != nil || !v.Tripped {
		t.Fatalf("threshold 1: %+v %v", v, err)
	}
	log.fail = errors.New("redis down")
	if _, err := s.Observe(context.Background(), Failure{Task: "a#2"}); err == nil {
		t.Fatal("a failing log was not reported")
	}
}
