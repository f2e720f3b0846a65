package supervisor

import (
	"context"
	"errors"
	"testing"
	"time"
)

// BenchmarkStallDetection measures, on the real clock, how late the stall
// watchdog stops a child that stopped making progress: the time from the
// child's last Progress to its exit, minus the Stall timeout, reported as
// overshoot-µs/op (the baseline is the timeout itself).
func BenchmarkStallDetection(b *testing.B) {
	const stall = 20 * time.Millisecond
	var total time.Duration
	for b.Loop() {
		var last time.Time
		exited := make(chan time.Time, 1)
		s := New(Spec{Name: "bench", AutoShutdown: AnySignificant}, ChildSpec{
			Name: "child", Restart: Temporary, Significant: true, Stall: stall,
			Start: func(ctx context.Context) error {
				Progress(ctx)
				last = time.Now()
				<-ctx.Done()
				exited <- time.Now()
				return context.Cause(ctx)
			},
		})
		err := s.Run(context.Background())
		var se *StallError
		if !errors.As(err, &se) {
			b.Fatalf("Run = %v, want a stall", err)
		}
		total += (<-exited).Sub(last) - stall
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "overshoot-µs/op")
}
