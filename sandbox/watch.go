package sandbox

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// diskPoll is the shortest pause between two looks at a running command's
// worktree; a tree that takes long to walk is looked at less often.
var diskPoll = 500 * time.Millisecond

// diskWatch stops a command whose worktree grows past the disk cap while
// it runs: the cap holds during the command, not only once it ends.
type diskWatch struct {
	over atomic.Int64 // the tree's size when it was stopped; 0 while under
	done chan struct{}
}

// watchDisk looks at dir's allocated size until ctx ends, and calls stop
// (which kills the command) the first time it is over limit.
func watchDisk(ctx context.Context, dir string, limit int64, stop func()) *diskWatch {
	w := &diskWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			begin := time.Now()
			total, _ := usage(dir, math.MaxInt64)
			if total > limit {
				w.over.Store(total)
				stop()
				return
			}
			// At most a tenth of a core on a tree that is slow to walk.
			pause := max(diskPoll, 10*time.Since(begin))
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		}
	}()
	return w
}

// stopped waits for the watcher and names the cap when it stopped the
// command ("" otherwise).
func (w *diskWatch) stopped(limit int64) string {
	if w == nil {
		return ""
	}
	<-w.done
	if n := w.over.Load(); n > 0 {
		return fmt.Sprintf("disk cap: the worktree holds %s, over %s, while the command runs: it was stopped", bytesOf(n), bytesOf(limit))
	}
	return ""
}
