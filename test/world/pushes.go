package world

import (
	"fmt"
	"net/http"
	"time"

	"github.com/warden-bot/warden/test/harness"
)

// FollowPushes makes the world behave like GitHub for pushes to an open
// PR's branch: each new head is announced with pull_request.synchronize,
// whoever pushed it (Warden's fix attempts included). Without it a test
// never sees what Warden does between its own push and the first CI event.
func (w *World) FollowPushes() {
	stop := make(chan struct{})
	done := make(chan struct{})
	w.T.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		heads := map[int]string{}
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			for _, p := range w.GH.Pulls(Repo) {
				old, seen := heads[p.Number]
				heads[p.Number] = p.HeadSHA
				if !seen || old == p.HeadSHA || p.State != "open" {
					continue // the PR's opening is not a synchronize
				}
				w.synchronize(p.Number, p.Head, p.HeadSHA, p.Author)
			}
		}
	}()
}

// synchronize delivers pull_request.synchronize; it runs beside the test,
// so a failure is logged, never fatal.
func (w *World) synchronize(n int, head, sha, author string) {
	body := w.Payload("pull_request.synchronize.json", func(m map[string]any) {
		pr := m["pull_request"].(map[string]any)
		pr["number"], pr["state"] = n, "open"
		pr["head"].(map[string]any)["ref"], pr["head"].(map[string]any)["sha"] = head, sha
		pr["user"].(map[string]any)["login"] = author
		m["sender"].(map[string]any)["login"] = author
	})
	req := harness.NewDelivery(w.Bot.URL()+"/webhooks", "pull_request", fmt.Sprintf("synchronize-%d-%s", n, sha), body, Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Logf("synchronize of PR #%d not delivered: %v", n, err)
		return
	}
	resp.Body.Close()
}
