package soak

import (
	"bufio"
	"context"
	"fmt"
	"github.com/warden-bot/warden/test/harness"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/warden-bot/warden/test/world"
)

// snapshot is one reading of the bot's resources.
type snapshot struct {
	goroutines int     // go_goroutines on /metrics
	fds        int     // entries of /proc/<pid>/fd
	rssMB      float64 // VmRSS, reported, not judged (the GC decides it)
	worktrees  int     // task directories under WARDEN_DATA_DIR/worktrees
	registered int     // worktrees the mirrors still register (<mirror>/worktrees/*)
	keys       int     // DBSIZE of the bot's Redis database
	persistent map[string]int
	volatile   map[string]int
}

// scrape is the bot's /metrics, one line per sample.
func scrape(w *world.World) ([]string, error) {
	resp, err := harness.GetOps(w.Bot.URL() + "/metrics") // behind the operator password when shared (#31)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// sample sums the samples of metric name whose labels contain label.
func sample(lines []string, name, label string) (float64, bool) {
	sum, found := 0.0, false
	for _, line := range lines {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '{') || !strings.Contains(rest, label) {
			continue
		}
		var v float64
		fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v)
		sum, found = sum+v, true
	}
	return sum, found
}

// idle reports whether no task is queued or running (status tasks included).
func idle(w *world.World) bool {
	lines, err := scrape(w)
	if err != nil {
		return false
	}
	n := 0.0
	for _, state := range []string{"pending", "active", "scheduled", "retry"} {
		v, _ := sample(lines, "warden_queue_tasks", `state="`+state+`"`)
		n += v
	}
	return n == 0
}

// read takes one snapshot; goroutines and fds are the least of five
// readings half a second apart, so a scrape's own connection or a periodic
// goroutine (asynq's heartbeat, a janitor) does not count as growth.
func read(w *world.World, rdb *redis.Client) (snapshot, error) {
	s := snapshot{goroutines: 1 << 30, fds: 1 << 30}
	for i := range 5 {
		if i > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		lines, err := scrape(w)
		if err != nil {
			return s, err
		}
		g, ok := sample(lines, "go_goroutines", "")
		if !ok {
			return s, fmt.Errorf("go_goroutines is not on /metrics")
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", w.Bot.Pid()))
		if err != nil {
			return s, err
		}
		s.goroutines, s.fds = min(s.goroutines, int(g)), min(s.fds, len(fds))
	}
	s.rssMB = w.Bot.ProcKB("VmRSS") / 1024
	data := w.Env["WARDEN_DATA_DIR"]
	wt, _ := os.ReadDir(filepath.Join(data, "worktrees"))
	reg, _ := filepath.Glob(filepath.Join(data, "mirrors", "*", "*.git", "worktrees", "*"))
	// Parked worktrees are kept for reuse on purpose: registered, not leaked.
	parked, _ := filepath.Glob(filepath.Join(data, "parked", "*", "*", "*"))
	s.worktrees, s.registered = len(wt), len(reg)-len(parked)
	var err error
	s.keys, s.persistent, s.volatile, err = keys(rdb)
	return s, err
}

// shape turns a key into its pattern: numbers and ids become placeholders.
var (
	hexID  = regexp.MustCompile(`[0-9a-f]{8}(-?[0-9a-f]{4,})+|[0-9a-f]{16,}`)
	number = regexp.MustCompile(`[0-9]+`)
)

func shape(key string) string {
	return number.ReplaceAllString(hexID.ReplaceAllString(key, "<id>"), "<n>")
}

// keys counts the database's keys, by pattern, with and without a TTL.
func keys(rdb *redis.Client) (int, map[string]int, map[string]int, error) {
	ctx := context.Background()
	persistent, volatile := map[string]int{}, map[string]int{}
	var all []string
	iter := rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		all = append(all, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return 0, nil, nil, err
	}
	pipe := rdb.Pipeline()
	ttls := make([]*redis.DurationCmd, len(all))
	for i, k := range all {
		ttls[i] = pipe.PTTL(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil && len(all) > 0 {
		return 0, nil, nil, err
	}
	retained, err := retainedTasks(ctx, rdb, all)
	if err != nil {
		return 0, nil, nil, err
	}
	for i, k := range all {
		switch {
		case ttls[i].Val() > 0:
			volatile[shape(k)]++
		case retained[k]:
			volatile["retained "+shape(k)]++
		default:
			persistent[shape(k)]++
		}
	}
	n, err := rdb.DBSize(ctx).Result()
	return int(n), persistent, volatile, err
}

// retainedTasks are the task hashes asynq keeps after they completed, for
// their retention (jobs.DeliveryRetention: a delivery's tasks keep their
// TaskID an hour). They have no Redis TTL, but each is listed in its queue's
// completed set with its expiry as the score, and asynq's janitor deletes it
// then: they expire by design, like keys with a TTL.
func retainedTasks(ctx context.Context, rdb *redis.Client, all []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range all {
		q, ok := strings.CutSuffix(k, ":completed")
		if !ok || !strings.HasPrefix(q, "asynq:{") {
			continue
		}
		ids, err := rdb.ZRange(ctx, k, 0, -1).Result()
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out[q+":t:"+id] = true
		}
	}
	return out, nil
}
