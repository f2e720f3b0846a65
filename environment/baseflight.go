package environment

import (
	"context"
	"sync"
)

// baseFuture is a baseline being run; attempts on the same base share it.
// It runs on a context of its own, not its leader's: the attempt that
// started it may end first (a plan that needs no change, a cancel, a
// retryable failure), and the attempts still waiting would then find no
// baseline and count the base's failures as their model's. It stops only
// when every attempt sharing it has left.
type baseFuture struct {
	done chan struct{}
	res  Baseline
	err  error
	key  string
	refs int                // attempts sharing it, under flights' lock
	stop context.CancelFunc // set by start, under flights' lock
}

// flights are the baselines running in this process, by cache key.
var flights = struct {
	sync.Mutex
	m map[string]*baseFuture
}{m: map[string]*baseFuture{}}

// join returns the running baseline of key, or a new one the caller must
// start; either way the caller shares it until leave.
func join(key string) (f *baseFuture, leader bool) {
	flights.Lock()
	defer flights.Unlock()
	if f, ok := flights.m[key]; ok {
		f.refs++
		return f, false
	}
	f = &baseFuture{done: make(chan struct{}), key: key, refs: 1}
	flights.m[key] = f
	return f, true
}

// cachedFuture is a result read from the cache: already done, shared by none.
func cachedFuture(b Baseline) *baseFuture {
	f := &baseFuture{done: make(chan struct{}), res: b, refs: 1}
	close(f.done)
	return f
}

// start runs the baseline detached from ctx's cancellation (its values,
// such as the logger's, are kept).
func (f *baseFuture) start(ctx context.Context, run func(context.Context) (Baseline, error)) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	flights.Lock()
	f.stop = cancel
	flights.Unlock()
	go func() {
		b, err := run(rctx)
		cancel()
		f.finish(b, err)
	}()
}

func (f *baseFuture) wait(ctx context.Context) (Baseline, error) {
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return Baseline{}, ctx.Err()
	}
}

// leave ends one attempt's share; the last one out stops a baseline still
// running, and a later attempt on the same base starts a new one.
func (f *baseFuture) leave() {
	flights.Lock()
	defer flights.Unlock()
	f.refs--
	if f.refs > 0 {
		return
	}
	if flights.m[f.key] == f {
		delete(flights.m, f.key)
	}
	if f.stop != nil {
		f.stop()
	}
}

func (f *baseFuture) finish(b Baseline, err error) {
	f.res, f.err = b, err
	flights.Lock()
	if flights.m[f.key] == f {
		delete(flights.m, f.key)
	}
	flights.Unlock()
	close(f.done)
}
