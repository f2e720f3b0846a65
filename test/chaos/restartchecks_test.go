package chaos

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/outcome"
	"github.com/warden-bot/warden/test/world"
)

// checkAnswers: every answer is 2xx or 503, none timed out; a 503 is never
// followed by "duplicate" (CONTRACT §3: only a delivery answered 2xx is
// remembered); the outage really hit traffic, and some issues were queued
// wholly before it, so their processing proves the queue survived the kill.
func checkAnswers(t *testing.T, ds []*delivery, stopped time.Time, webLogs string) {
	t.Helper()
	codes := map[int]int{}
	unavailable, slowest := 0, time.Duration(0)
	before := map[int]bool{} // issue → every delivery accepted before the stop
	for _, d := range ds {
		if _, ok := before[d.issue]; !ok {
			before[d.issue] = true
		}
		for i, a := range d.answers {
			codes[a.code]++
			slowest = max(slowest, a.took)
			switch {
			case a.err != nil:
				t.Errorf("delivery %s: %v", d.id, a.err)
			case a.code != http.StatusOK && a.code != http.StatusAccepted && a.code != http.StatusServiceUnavailable:
				t.Errorf("delivery %s: HTTP %d (%s), want 200, 202 or 503", d.id, a.code, a.status)
			case i > 0 && a.status == "duplicate":
				t.Errorf("delivery %s answered 503, then %q on redelivery: an unaccepted delivery was remembered and is never processed; the web process logged:\n%s",
					d.id, a.status, linesWith(webLogs, `"delivery":"`+d.id+`"`))
			}
		}
		if d.answers[0].code == http.StatusServiceUnavailable {
			unavailable++
		}
		if d.answers[0].code == http.StatusServiceUnavailable || d.answers[0].at.After(stopped) {
			before[d.issue] = false
		}
	}
	durable := 0
	for _, ok := range before {
		if ok {
			durable++
		}
	}
	t.Logf("answers by code %v, slowest %s; %d deliveries first answered 503; %d issues wholly queued before Redis was killed",
		codes, slowest.Round(time.Millisecond), unavailable, durable)
	if unavailable == 0 || durable == 0 {
		t.Fatalf("the Redis outage did not split the traffic (503s %d, issues queued before it %d): the test proves nothing", unavailable, durable)
	}
}

// checkProcessedOnce: one plan request and one Completed outcome per issue
// (its deliveries folded into one task), one status comment per issue, and
// one `/warden status` reply per accepted status delivery.
func checkProcessedOnce(t *testing.T, w *world.World, ds []*delivery) {
	t.Helper()
	accepted := map[int]int{}
	for _, d := range ds {
		if d.event == "issue_comment" && d.last().code == http.StatusAccepted {
			accepted[d.issue]++
		}
	}
	plans := planRequests(w)
	for i := range restartIssues {
		n := firstRestartIssue + i
		if plans[n] != 1 {
			t.Errorf("issue %d: %d plan requests, want 1", n, plans[n])
		}
		if rs := w.Records(n); len(rs) != 1 || rs[0].Outcome != outcome.Completed {
			t.Errorf("issue %d: outcome records %+v, want one completed", n, rs)
		}
		replies, status := 0, 0
		for _, b := range w.BotComments(n) {
			if strings.Contains(b, "Warden state:") {
				replies++
			}
			if strings.Contains(b, "<!-- warden:status -->") {
				status++
			}
		}
		if replies != accepted[n] {
			t.Errorf("issue %d: %d status replies for %d accepted /warden status deliveries", n, replies, accepted[n])
		}
		if status != 1 {
			t.Errorf("issue %d: %d status comments, want 1", n, status)
		}
	}
}

// planRequests counts the model's plan requests per issue of the traffic.
func planRequests(w *world.World) map[int]int {
	out := map[int]int{}
	for _, r := range w.Model.Requests() {
		if r.Stage != "plan" {
			continue
		}
		for i := range restartIssues {
			if strings.Contains(r.Prompt, issueTitle(firstRestartIssue+i)) {
				out[firstRestartIssue+i]++
			}
		}
	}
	return out
}

// linesWith are the lines of logs that contain s.
func linesWith(logs, s string) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
