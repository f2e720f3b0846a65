package pipeline

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
)

func TestSpawnRetriesOnlyTheFailedSubIssue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		calls := map[int]int{}
		a := &attempt{log: slog.New(slog.NewTextHandler(io.Discard, nil)), p: &Pipeline{Spawn: func(_ context.Context, _ Task, n int) error {
			mu.Lock()
			defer mu.Unlock()
			calls[n]++
			if n == 12 && calls[n] == 1 || n == 13 {
				return errors.New("redis: connection reset")
			}
			return nil
		}}}
		missing := a.spawn(context.Background(), []int{11, 12, 13})
		if !reflect.DeepEqual(missing, []int{13}) {
			t.Fatalf("missing = %v, want [13]", missing)
		}
		if calls[11] != 1 || calls[12] != 2 {
			t.Fatalf("calls = %v: #11 once, #12 twice (one retry)", calls)
		}
		if calls[13] < 2 {
			t.Fatalf("#13 was not retried: %v", calls)
		}
	})
}

func TestSpawnWithoutSpawner(t *testing.T) {
	if got := (&attempt{p: &Pipeline{}}).spawn(context.Background(), []int{1}); got != nil {
		t.Fatalf("got %v", got)
	}
}

func TestMarkedDepth(t *testing.T) {
	for body, want := range map[string]int{
		"no marker": 0,
		"x\n<!-- warden:parent {\"issue\":3,\"depth\":2} -->": 2,
		"<!-- warden:parent {\"issue\":3} -->":                0,
		"<!-- warden:parent {\"depth\":-4} -->":               0,
		"<!-- warden:parent {\"depth\":1e9} -->":              0,
		"<!-- other:parent {\"depth\":2} -->":                 0,
		"<!-- warden:parent {\"depth\":7 -->":                 0,
	} {
		if got := markedDepth(body, "warden"); got != want {
			t.Errorf("markedDepth(%q) = %d, want %d", body, got, want)
		}
	}
}
