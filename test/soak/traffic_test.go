package soak

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-bot/warden/test/fakemodel"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// kind is what a pool issue does every time it is labelled.
type kind string

const (
	happy  kind = "happy"  // plan, fix, green tests, PR: completed
	red    kind = "red"    // the fixes never get the tests green: escalated
	cancel kind = "cancel" // the Plan request hangs; the label is removed: canceled
)

const (
	trigger = "warden:maintenance"
	body    = "calc.Add(2, 3) returns -1; it should add."
)

// issue is one issue of the bounded pool; it is relabelled over and over.
type issue struct {
	n    int
	kind kind
}

func (is issue) title() string {
	return fmt.Sprintf("Add returns the difference (soak %s %d)", is.kind, is.n)
}

// pool is the bounded set of issues the loop cycles through: per-issue
// state (comments, Redis keys, the asynq task id) cannot grow with time,
// only with the pool, so growth after warm-up is a leak.
func pool() []issue {
	var out []issue
	for i, k := range []kind{happy, happy, happy, red, red, cancel, cancel} {
		out = append(out, issue{n: 100 + i, kind: k})
	}
	return out
}

// script answers by the kind named in the issue's title: the happy and red
// scripts of test/world, or a Plan request that hangs until the bot leaves.
func script(req fakemodel.Request) fakemodel.Reply {
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Content)
	}
	switch s := all.String(); {
	case strings.Contains(s, "(soak red "):
		return world.RedScript(req)
	case strings.Contains(s, "(soak cancel ") && req.Stage == "plan":
		return fakemodel.Reply{Hang: 2 * time.Minute, Text: world.PlanReply}
	case req.Stage == "implement" && strings.Contains(req.Prompt, "\treturn sum"):
		return world.Text(toPlain) // a later run continues its PR's head (#27)
	case req.Stage == "implement" && strings.Contains(req.Prompt, "return a + b"):
		return world.Text(toSum)
	}
	return world.HappyScript(req)
}

// toSum and toPlain change a PR head whose Add is already fixed, back and
// forth, as a model shown that head would change it.
const (
	toSum   = "calc/calc.go\n<<<<<<< SEARCH\n\treturn a + b\n=======\n\tsum := a + b\n\treturn sum\n>>>>>>> REPLACE\n"
	toPlain = "calc/calc.go\n<<<<<<< SEARCH\n\tsum := a + b\n\treturn sum\n=======\n\treturn a + b\n>>>>>>> REPLACE\n"
)

// sender delivers signed webhooks to the bot; safe for concurrent use.
type sender struct {
	w      *world.World
	client *http.Client
	mu     sync.Mutex
	seq    int
	events atomic.Int64 // labelling events sent, to tell them apart
}

func (s *sender) id(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("soak-%s-%d", prefix, s.seq)
}

func (s *sender) do(req *http.Request) (int, error) {
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// label delivers issues.<action> for the trigger label with delivery id.
func (s *sender) label(is issue, action, id string) (int, error) {
	return s.do(harness.LabeledDelivery(s.w.T, harness.LabeledOptions{
		URL: s.w.Bot.URL() + "/webhooks", Secret: world.Secret, DeliveryID: id, Repo: world.Repo,
		CloneURL: s.w.GH.Repo(world.Repo).CloneURL, RepoID: s.w.GH.Repo(world.Repo).ID, Installation: world.Inst, Issue: is.n,
		Title: is.title(), Body: body, Label: trigger, Sender: "alice", Action: action,
		UpdatedAt: time.Now().Add(time.Duration(s.events.Add(1)) * time.Millisecond), // another event each time
	}))
}

// comment delivers issue_comment.created by alice on the issue.
func (s *sender) comment(is issue, body string) (int, error) {
	var labels []any
	for _, l := range s.w.GH.Labels(world.Repo, is.n) {
		labels = append(labels, map[string]any{"name": l})
	}
	b := s.w.Payload("issue_comment.created.json", func(m map[string]any) {
		iss := m["issue"].(map[string]any)
		iss["number"], iss["labels"], iss["title"] = is.n, labels, is.title()
		delete(iss, "pull_request")
		m["comment"].(map[string]any)["body"] = body
		m["sender"].(map[string]any)["login"] = "alice"
	})
	b, _ = harness.Stamp(b, int(s.events.Add(1))) // each comment is another event (#31 replay)
	return s.do(harness.NewDelivery(s.w.Bot.URL()+"/webhooks", "issue_comment", s.id("comment"), b, world.Secret))
}

// counts are what the loop sent and saw, by name.
type counts struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *counts) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[name]++
}

func (c *counts) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for k, v := range c.m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	return strings.Join(sortStrings(parts), " ")
}

// chance is true with probability p.
func chance(p float64) bool { return rand.Float64() < p }
