package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/fakegithub"
)

// TestFeedbackAndCallBudget: every labelled issue gets 👀 at once; a task
// that waited in the queue shows "queued" with two calls (one comment, one
// label) and its run edits that comment without listing the issue's
// comments; a task costs at most 14 calls, the reaction and the `Warden`
// check run with its transcript included (the App, bot user, token and
// permission lookups aside; a task whose run starts before the "queued"
// update costs 12).
func TestFeedbackAndCallBudget(t *testing.T) {
	w := newWorld(t, calcRepo(), func(env map[string]string) { env["WARDEN_CONCURRENCY"] = "1"; env["WARDEN_CI_GRACE"] = "1h" })
	w.Model.Script(happyScript)
	for _, n := range []int{7, 8} {
		if code := w.Label(n, fmt.Sprint("Add returns the difference, take ", n), "calc.Add(2, 3) returns -1; it should add.", "warden:maintenance", "alice"); code != http.StatusAccepted {
			t.Fatalf("issue %d: answered %d", n, code)
		}
	}
	for _, n := range []int{7, 8} {
		w.Eventually(90*time.Second, func() bool { return w.CommentWith(n, "<!-- warden:outcome") != "" }, fmt.Sprintf("no outcome on issue %d", n))
	}
	time.Sleep(500 * time.Millisecond) // the last label swap
	for _, n := range []int{7, 8} {
		rs := w.GH.Reactions(repo, n)
		if len(rs) != 1 || rs[0].Content != "eyes" || rs[0].Author != fakegithub.BotLogin {
			t.Errorf("issue %d: reactions %+v, want one 👀 by Warden", n, rs)
		}
		status := 0
		for _, c := range w.BotComments(n) {
			if strings.Contains(c, "<!-- warden:status -->") {
				status++
			}
		}
		if status != 1 {
			t.Errorf("issue %d: %d status comments, want 1", n, status)
		}
	}
	calls := w.GH.Calls()
	var task []fakegithub.Call
	for _, c := range calls {
		// The App's identity (its bot user, read once per process and
		// cached) is not a task's cost, like the App and token lookups.
		if c.Path == "/app" || strings.HasSuffix(c.Path, "/access_tokens") || strings.Contains(c.Path, "/permission") || strings.HasPrefix(c.Path, "/users/") {
			continue
		}
		task = append(task, c)
	}
	for _, n := range []int{7, 8} {
		checkQueuedUpdate(t, task, n)
	}
	// 15 a task: a first run also lists the open PRs (the issue's PR is
	// derived from GitHub when Redis has no record of it, #38).
	if len(task) > 2*15 {
		var lines []string
		for _, c := range task {
			lines = append(lines, c.Method+" "+c.Path)
		}
		t.Errorf("%d calls for two tasks, want at most %d:\n%s", len(task), 2*15, strings.Join(lines, "\n"))
	}
}

// checkQueuedUpdate: issue n's "queued" update, when it landed before its
// run read the issue, was one comment and one label call, and then the run
// did not list the issue's comments. (The 👀 may come before or after the
// run starts; it is checked on its own.)
func checkQueuedUpdate(t *testing.T, task []fakegithub.Call, n int) {
	t.Helper()
	issue := fmt.Sprintf("/repos/%s/issues/%d", repo, n)
	var before []string
	read, listed := false, false
	for _, c := range task {
		switch {
		case c.Method == "GET" && c.Path == issue, c.Subject == fmt.Sprintf("issue %d", n):
			read = true // over REST or GraphQL
		case c.Method == "GET" && c.Path == issue+"/comments":
			listed = true
		case !read && strings.HasPrefix(c.Path, issue+"/") && !strings.HasSuffix(c.Path, "/reactions"):
			before = append(before, c.Method+" "+strings.TrimPrefix(c.Path, issue))
		}
	}
	switch got := strings.Join(before, " "); got {
	case "POST /comments POST /labels":
		if listed {
			t.Errorf("issue %d: the run listed the comments the queued update had just written", n)
		}
	case "":
	default:
		t.Errorf("issue %d before its run: %v, want one comment and one label (the queued update) or nothing", n, before)
	}
}
