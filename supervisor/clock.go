// Package supervisor contains Warden's supervision primitives, after
// Erlang/OTP: restart policies with backoff, crash (panic) containment, stall
// detection, and the fingerprint breaker. It knows nothing of GitHub, git or
// models.
package supervisor

import (
	"fmt"
	"runtime/debug"
	"time"
)

// Clock is injected so tests control time.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer supervision uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realClock struct{}
type realTimer struct{ t *time.Timer }

// RealClock is wall time.
func RealClock() Clock { return realClock{} }

func (realClock) Now() time.Time                 { return time.Now() }
func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }
func (t realTimer) C() <-chan time.Time          { return t.t.C }
func (t realTimer) Stop() bool                   { return t.t.Stop() }

// PanicError is a panic recovered at a child's boundary, with its stack.
type PanicError struct {
	Value any
	Stack []byte
}

// NewPanicError captures the current stack.
func NewPanicError(v any) *PanicError { return &PanicError{Value: v, Stack: debug.Stack()} }

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Panic marks the error as a recovered panic for classification.
func (e *PanicError) Panic() any { return e.Value }
