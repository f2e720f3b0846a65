package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/warden-bot/warden/environment/testreport"
	"github.com/warden-bot/warden/environment/workspace"
	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/sandbox"
)

// StageBaseline names the base commit's test run in logs.
const StageBaseline = "Baseline"

// baselineTTL is how long a base commit's result is trusted: the commit
// cannot change, but a test that reads the clock or a certificate can.
const baselineTTL = 24 * time.Hour

// baseline is the test command's result on a base commit, as cached.
type baseline struct {
	Repo       string    `json:"repo"`
	Base       string    `json:"base"`
	Command    string    `json:"command"`
	Structured bool      `json:"structured"`
	Failed     []string  `json:"failed"`
	Output     string    `json:"output"` // cut, for the blocked message
	At         time.Time `json:"at"`
}

func (b baseline) failed(id string) bool {
	for _, f := range b.Failed {
		if f == id {
			return true
		}
	}
	return false
}

// baseFuture is a baseline being run; tasks on the same base share it.
type baseFuture struct {
	done chan struct{}
	res  baseline
	err  error
}

func (f *baseFuture) wait(ctx context.Context) (baseline, error) {
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return baseline{}, ctx.Err()
	}
}

// flights are the baselines running in this process, by cache key.
var flights = struct {
	sync.Mutex
	m map[string]*baseFuture
}{m: map[string]*baseFuture{}}

// join returns the running baseline of key, or a new one the caller must run.
func join(key string) (f *baseFuture, leader bool) {
	flights.Lock()
	defer flights.Unlock()
	if f, ok := flights.m[key]; ok {
		return f, false
	}
	f = &baseFuture{done: make(chan struct{})}
	flights.m[key] = f
	return f, true
}

func (f *baseFuture) finish(key string, b baseline, err error) {
	f.res, f.err = b, err
	close(f.done)
	flights.Lock()
	delete(flights.m, key)
	flights.Unlock()
}

// baselineKey names a result by repository, base commit and test command.
func baselineKey(repo, base, command string) string {
	sum := sha256.Sum256([]byte(repo + "\x00" + base + "\x00" + command))
	return hex.EncodeToString(sum[:12])
}

// baselineCache keeps results on the worker's disk, beside the mirrors.
type baselineCache struct{ dir string }

func (c baselineCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

func (c baselineCache) get(key string, now time.Time) (baseline, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return baseline{}, false
	}
	var b baseline
	if json.Unmarshal(data, &b) != nil || now.Sub(b.At) > baselineTTL || now.Before(b.At.Add(-time.Minute)) {
		_ = os.Remove(c.path(key))
		return baseline{}, false
	}
	return b, true
}

// put writes atomically: a reader sees a whole result or none.
func (c baselineCache) put(key string, b baseline) error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path(key))
}

// testRun is one run of a test plan in a tree, read test by test.
func (a *attempt) testRun(ctx context.Context, stage string, tree sandbox.Tree, line string, plan testreport.Plan) (workspace.Result, testreport.Result) {
	plan.ClearReports(tree.Dir)
	max := 0
	if plan.Kind == testreport.GoJSON {
		max = 16 << 20 // events are verbose; what the model sees is cut later
	}
	c := a.command(line, a.cfg.Timeouts.Test, sandbox.Test) // the image, cache and network the test stage has
	c.Tree, c.MaxOutput, c.Report, c.Egress = tree, max, plan.Report, a.egressFor(stage)
	res := workspace.Run(ctx, c)
	msg := "command finished"
	if stage == StageBaseline {
		msg = "baseline finished" // concurrent with the model: not on the critical path
	}
	a.log.Info(msg, "stage", stage, "exit_code", res.ExitCode, "duration_ms", res.Duration.Milliseconds())
	r := plan.Parse(res.Output, res.ExitCode, res.TimedOut || res.Cap != "", tree.Dir, res.Report)
	r.Output = cutMiddle(r.Output, 64<<10)                       // as much as a plain run keeps
	a.noteCommand(stage, a.cfg.Test, res, r.Output, testsRan(r)) // the runner's text, not its JSON
	return res, r
}

// runBaseline runs the test command on the base copy and caches the result
// when it is one (a command that could not start, or was killed, is not).
func (a *attempt) runBaseline(ctx context.Context, bc *workspace.BaseCopy, plan testreport.Plan) (baseline, error) {
	res, r := a.testRun(ctx, StageBaseline, bc.Tree(), plan.Line, plan)
	if res.Err != nil || res.Canceled || ctx.Err() != nil {
		return baseline{}, fmt.Errorf("baseline on %s: %w", bc.SHA, firstErr(res.Err, ctx.Err(), context.Canceled))
	}
	return baseline{Repo: a.t.Repo, Base: bc.SHA, Command: a.cfg.Test, Structured: r.Structured, Failed: r.Failed,
		Output: outcome.Trim(r.Output, 16<<10), At: time.Now().UTC()}, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
