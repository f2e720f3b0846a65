package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/warden-bot/warden/test/world"
)

// follower reads the bot's log as it grows and keeps, per issue, how many
// attempts finished and how the last one ended.
type follower struct {
	w    *world.World
	mu   sync.Mutex
	off  int
	ends map[int][]string // issue → "outcome/failure_class" of each finished attempt
}

// poll reads what the bot logged since the last poll; f.mu must be held.
func (f *follower) poll() {
	chunk, _ := f.w.Bot.LogsSince(f.off)
	last := strings.LastIndexByte(chunk, '\n')
	if last < 0 {
		return
	}
	f.off += last + 1
	sc := bufio.NewScanner(strings.NewReader(chunk[:last+1]))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Msg, Outcome string
			Issue        int
			Class        string `json:"failure_class"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Msg != "attempt finished" {
			continue
		}
		f.ends[e.Issue] = append(f.ends[e.Issue], e.Outcome+"/"+e.Class)
	}
}

// ended is the number of finished attempts of issue n and the last one's end.
func (f *follower) ended(n int) (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.poll()
	e := f.ends[n]
	if len(e) == 0 {
		return 0, ""
	}
	return len(e), e[len(e)-1]
}

// driver runs scenarios on the pool's issues, each issue in one scenario at a time.
type driver struct {
	w      *world.World
	send   *sender
	logs   *follower
	counts *counts
	mu     sync.Mutex
	idle   []issue
	errs   []string
}

func (d *driver) fail(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}

// take removes a random idle issue from the pool, or reports none.
func (d *driver) take() (issue, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.idle) == 0 {
		return issue{}, false
	}
	i := int(time.Now().UnixNano() % int64(len(d.idle)))
	is := d.idle[i]
	d.idle = append(d.idle[:i], d.idle[i+1:]...)
	return is, true
}

func (d *driver) put(is issue) { d.mu.Lock(); d.idle = append(d.idle, is); d.mu.Unlock() }

// want is how each kind must end.
var want = map[kind]func(end string) bool{
	happy:  func(e string) bool { return e == "completed/" },
	red:    func(e string) bool { return strings.HasPrefix(e, "escalated/") && e != "escalated/canceled" },
	cancel: func(e string) bool { return strings.HasSuffix(e, "/canceled") },
}

// scenario labels the issue (sometimes twice with the same delivery id,
// sometimes with a /warden status comment), cancels it when its kind says
// so, waits for the attempt to end and checks how it ended.
func (d *driver) scenario(is issue) {
	before, _ := d.logs.ended(is.n)
	plans := d.plans(is)
	if !d.relabel(is) {
		return
	}
	if chance(0.3) {
		d.sendCounted(is, "status", func() (int, error) { return d.send.comment(is, "/warden status") })
	}
	if is.kind == cancel && d.waitFor(60*time.Second, func() bool { return d.plans(is) > plans }) {
		d.w.GH.RemoveLabel(world.Repo, is.n, trigger)
		d.sendCounted(is, "unlabeled", func() (int, error) { return d.send.label(is, "unlabeled", d.send.id("unlabel")) })
	}
	var end string
	if !d.waitFor(5*time.Minute, func() bool { n, e := d.logs.ended(is.n); end = e; return n > before }) {
		d.fail("issue %d (%s): no attempt finished within 5 minutes", is.n, is.kind)
		return
	}
	d.counts.add(string(is.kind) + ":" + end)
	if !want[is.kind](end) {
		d.fail("issue %d (%s) ended %q", is.n, is.kind, end)
	}
	if is.kind == red {
		d.sendCounted(is, "resume", func() (int, error) { return d.send.comment(is, "/warden resume") })
	}
}

// relabel puts the trigger label back and delivers issues.labeled until it
// is queued (202): right after an attempt the task may not have left the
// queue yet, and the delivery is answered 200 "already queued". One in three
// times the same delivery is sent again and must be answered 200.
func (d *driver) relabel(is issue) bool {
	for try := 0; try < 100; try++ {
		d.w.GH.AddIssue(world.Repo, is.n, is.title(), body, "alice")
		d.w.GH.RemoveLabel(world.Repo, is.n, trigger)
		d.w.GH.AddIssue(world.Repo, is.n, is.title(), body, "alice", trigger)
		id := d.send.id("label")
		code, err := d.send.label(is, "labeled", id)
		if err != nil || (code != 202 && code != 200) {
			d.fail("issue %d: labeled answered %d, %v", is.n, code, err)
			return false
		}
		if code == 200 {
			d.counts.add("labeled:already-queued")
			time.Sleep(300 * time.Millisecond)
			continue
		}
		d.counts.add("labeled:queued")
		if chance(0.3) {
			if dup, err := d.send.label(is, "labeled", id); err != nil || dup != 200 {
				d.fail("issue %d: duplicate delivery %s answered %d, %v (want 200)", is.n, id, dup, err)
			}
			d.counts.add("labeled:duplicate")
		}
		return true
	}
	d.fail("issue %d: never queued after 100 deliveries", is.n)
	return false
}

func (d *driver) sendCounted(is issue, name string, send func() (int, error)) {
	code, err := send()
	if err != nil || code >= 300 {
		d.fail("issue %d: %s answered %d, %v", is.n, name, code, err)
	}
	d.counts.add(name)
}

// plans counts the Plan requests the fake model received for the issue.
func (d *driver) plans(is issue) int {
	n := 0
	for _, r := range d.w.Model.Requests() {
		if r.Stage == "plan" && strings.Contains(r.Prompt, is.title()) {
			n++
		}
	}
	return n
}

func (d *driver) waitFor(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

func sortStrings(s []string) []string { sort.Strings(s); return s }
