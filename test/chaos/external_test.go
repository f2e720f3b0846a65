// Package chaos breaks what Warden depends on (GitHub's API, the model, the
// disk under its data directory) while the real bot works through issues,
// and checks what CONTRACT.md promises: every issue ends with one clear,
// correctly classified outcome, nothing is posted twice, and the bot is
// still healthy for the next issue.
package chaos

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/fakegithub"
	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/world"
)

// outcomeWait bounds the wait for one issue's outcome: generous, because
// every world shares the machine's CPUs with the rest of `make test`
// under the race detector.
const outcomeWait = 150 * time.Second

// Every issue reports the calc module's bug (world.CalcRepo); the body is
// issueBody, shared with the process-fault tests.
const titleText = "Add returns the difference"

// serverError is the body GitHub answers a request it gave up on.
var serverError = []byte(`{"message":"Server Error"}`)

// title is an issue title carrying tag: every prompt quotes the title
// verbatim, so a model script can tell which issue a request is for.
func title(tag string) string { return "[" + tag + "] " + titleText }

// label opens issue n titled with tag and labels it for maintenance.
func label(t *testing.T, w *world.World, n int, tag string) {
	t.Helper()
	if code := w.Label(n, title(tag), issueBody, "warden:maintenance", "alice"); code != http.StatusAccepted {
		t.Fatalf("issue %d: the labelled delivery answered %d", n, code)
	}
}

// router answers each model request with the script of its issue's tag
// (the happy script when none is set) and notes when requests arrived.
type router struct {
	mu      sync.Mutex
	scripts map[string]func(fakemodel.Request) fakemodel.Reply
	arrived map[string][]arrival
}

type arrival struct {
	stage string
	at    time.Time
}

func newRouter(w *world.World) *router {
	r := &router{scripts: map[string]func(fakemodel.Request) fakemodel.Reply{}, arrived: map[string][]arrival{}}
	w.Model.Script(r.reply)
	return r
}

// on sets the script of the issue whose title carries tag.
func (r *router) on(tag string, fn func(fakemodel.Request) fakemodel.Reply) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scripts[tag] = fn
}

func (r *router) reply(req fakemodel.Request) fakemodel.Reply {
	tag := tagOf(req)
	r.mu.Lock()
	r.arrived[tag] = append(r.arrived[tag], arrival{req.Stage, time.Now()})
	fn := r.scripts[tag]
	r.mu.Unlock()
	if fn == nil {
		return world.HappyScript(req)
	}
	return fn(req)
}

// calls lists when the requests of tag's issue arrived, stage by stage.
func (r *router) calls(tag, stage string) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Time
	for _, a := range r.arrived[tag] {
		if a.stage == stage {
			out = append(out, a.at)
		}
	}
	return out
}

// tagOf finds the "[tag]" of the issue title quoted in a conversation.
func tagOf(req fakemodel.Request) string {
	for _, m := range req.Messages {
		if i := strings.Index(m.Content, "] "+titleText); i > 0 {
			if j := strings.LastIndex(m.Content[:i], "["); j >= 0 {
				return m.Content[j+1 : i]
			}
		}
	}
	return ""
}

// once checks that Warden's comments on issue n hold outcomes outcome
// comments and exactly one status comment: no write was doubled.
func once(t *testing.T, w *world.World, n, outcomes int) {
	t.Helper()
	var o, s int
	for _, b := range w.BotComments(n) {
		o += strings.Count(b, "<!-- warden:outcome")
		s += strings.Count(b, "<!-- warden:status -->")
	}
	if o != outcomes || s != 1 {
		t.Errorf("issue %d: %d outcome and %d status comments, want %d and 1:\n%s", n, o, s, outcomes, strings.Join(w.BotComments(n), "\n-----\n"))
	}
	prs := 0
	for _, p := range w.GH.Pulls(world.Repo) {
		if strings.Contains(p.Body, fmt.Sprintf("Fixes #%d\n", n)) {
			prs++
		}
	}
	if prs > 1 {
		t.Errorf("issue %d: %d pull requests", n, prs)
	}
}

// settled waits for issue n to carry exactly one state label, state.
func settled(t *testing.T, w *world.World, n int, state string) {
	t.Helper()
	w.Eventually(30*time.Second, func() bool {
		states := 0
		for _, l := range w.GH.Labels(world.Repo, n) {
			if l != "warden:maintenance" {
				states++
			}
		}
		return states == 1 && w.HasLabel(n, state)
	}, "issue does not carry exactly "+state)
}

// retry is a failed call and the next call to its path: the same request
// again, or a GET that looks whether a failed write was stored after all.
type retry struct{ failed, next fakegithub.Call }

// retries pairs every call to method and a path with prefix that was
// answered status with the next call to that path (the same method, or a
// GET); a failure never followed is reported.
func retries(t *testing.T, w *world.World, method, prefix string, status int) []retry {
	t.Helper()
	calls := w.GH.Calls()
	var out []retry
	for i, c := range calls {
		if c.Method != method || !strings.HasPrefix(c.Path, prefix) || c.Status != status {
			continue
		}
		found := false
		for _, d := range calls[i+1:] {
			if (d.Method == c.Method || d.Method == http.MethodGet) && d.Path == c.Path {
				out, found = append(out, retry{c, d}), true
				break
			}
		}
		if !found {
			t.Errorf("%s %s answered %d at %s was never retried", c.Method, c.Path, status, c.Time.Format("15:04:05.000"))
		}
	}
	return out
}

// healthy checks that the bot still runs and answers /healthz.
func healthy(t *testing.T, w *world.World) {
	t.Helper()
	select {
	case <-w.Bot.Done():
		t.Fatalf("the bot exited:\n%s", world.Tail(w.Bot.Logs(), 6000))
	default:
	}
	resp, err := http.Get(w.Bot.URL() + "/healthz")
	if err != nil {
		t.Fatalf("healthz: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz answered %d", resp.StatusCode)
	}
}

// completed reports whether issue n has a completed outcome record.
func completed(w *world.World, n int) bool {
	return slices.ContainsFunc(w.Records(n), func(r outcome.Record) bool { return r.Outcome == outcome.Completed })
}

// fsck fails the test unless git finds the repository at dir intact
// (dangling objects from an interrupted fetch are harmless and allowed).
func fsck(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--full", "--no-progress").CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "dangling ") && !strings.HasPrefix(l, "notice: ") {
			err = errors.New("unexpected line: " + l)
		}
	}
	if err != nil {
		t.Fatalf("git fsck %s: %v\n%s", dir, err, out)
	}
}

// gitIn runs git in dir and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
