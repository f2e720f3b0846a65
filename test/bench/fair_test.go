package bench

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/warden-bot/warden/test/gitfixture"
	"github.com/warden-bot/warden/test/harness"
	"github.com/warden-bot/warden/test/world"
)

// otherRepo is a second repository of the world's installation.
const otherRepo = world.Owner + "/other"

func addOtherRepo(w *world.World) {
	_, url := gitfixture.NewRepo(w.T, world.CalcRepo())
	w.GH.AddRepo(world.Owner, "other", url, "main")
	w.GH.SetPermission(otherRepo, "alice", "write")
}

// labelIn labels issue n of repo, as label does for the world's repository.
func labelIn(w *world.World, repo string, n int) time.Time {
	title, body := "Add returns the difference", "calc.Add(2, 3) returns -1; it should add."
	w.GH.AddIssue(repo, n, title, body, "alice", "warden:maintenance")
	req := harness.LabeledDelivery(w.T, harness.LabeledOptions{
		URL: w.Bot.URL() + "/webhooks", Secret: world.Secret, DeliveryID: fmt.Sprintf("fair-%s-%d", repo, n),
		Repo: repo, CloneURL: w.GH.Repo(repo).CloneURL, RepoID: w.GH.Repo(repo).ID, Installation: world.Inst, Issue: n,
		Title: title, Body: body, Label: "warden:maintenance", Sender: "alice",
	})
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 202 {
		w.T.Fatalf("%s#%d: delivery answered %d", repo, n, resp.StatusCode)
	}
	return t0
}

// planStarted is when issue n's Plan stage began, from its "stage finished"
// log line (all issues share a title, so the model's requests do not tell
// them apart); zero until it finished.
func planStarted(w *world.World, n int) time.Time { return planStarts(w, n)[n] }

// planStarts maps each issue (issue n only, unless 0) to its Plan's start.
func planStarts(w *world.World, n int) map[int]time.Time {
	out := map[int]time.Time{}
	for _, e := range entries(w, n) {
		if e.Msg == "stage finished" && e.Stage == "Plan" {
			out[e.Issue] = e.Time.Add(-time.Duration(e.DurationMS) * time.Millisecond)
		}
	}
	return out
}

// BenchmarkFairness: 200 issues labelled in repository A, then one in
// repository B, 4 workers, the fake model answering at once (every attempt
// ends after its Plan). B's wait, label to its Plan, against a lone task's
// in the same run and against the length of one A task.
func BenchmarkFairness(b *testing.B) {
	w := world.New(b, nil, concurrencyOpt(4))
	addOtherRepo(w)
	w.Model.Script(blockPlan)
	lone := nextIssue()
	t0 := label(w, lone)
	w.Eventually(60*time.Second, func() bool { return !planStarted(w, lone).IsZero() }, "no Plan of the lone task")
	loneWait := planStarted(w, lone).Sub(t0)
	loneLen := finished(w, 90*time.Second, "blocked", lone)[lone].Time.Sub(t0)
	b.ResetTimer()
	var bWait, aLen time.Duration
	var aAhead int
	for range b.N {
		var as []int
		var wg sync.WaitGroup
		for range 200 {
			n := nextIssue()
			as = append(as, n)
		}
		for i := 0; i < len(as); i += 50 { // 4 senders: a burst, as a bulk relabel
			wg.Add(1)
			go func(part []int) {
				defer wg.Done()
				for _, n := range part {
					label(w, n)
				}
			}(as[i:min(i+50, len(as))])
		}
		wg.Wait()
		nb := nextIssue()
		tb := labelIn(w, otherRepo, nb)
		w.Eventually(5*time.Minute, func() bool { return !planStarted(w, nb).IsZero() }, "no Plan of B's task")
		pb := planStarted(w, nb)
		bWait += pb.Sub(tb)
		done := finished(w, 10*time.Minute, "blocked", as...)
		first, last := time.Time{}, time.Time{}
		plans := planStarts(w, 0)
		for _, n := range as {
			p := plans[n]
			if p.After(tb) && p.Before(pb) {
				aAhead++
			}
			if e := done[n].Time; first.IsZero() || e.Before(first) {
				first = e
			}
			if e := done[n].Time; e.After(last) {
				last = e
			}
		}
		// Two A tasks run at once (WARDEN_MAX_PER_REPO): one task's length
		// is twice the mean time between A completions.
		aLen += 2 * last.Sub(first) / time.Duration(len(as)-1)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return ms(d) / float64(b.N) }
	b.ReportMetric(per(bWait), "b-wait-ms")
	b.ReportMetric(ms(loneWait), "lone-wait-ms")
	b.ReportMetric(ms(loneLen), "lone-task-ms")
	b.ReportMetric(per(aLen), "a-task-ms")
	b.ReportMetric(per(bWait)/max(ms(loneWait), 0.001), "b-wait/lone-wait")
	b.ReportMetric(per(bWait)/max(per(aLen), 0.001), "b-wait/a-task")
	b.ReportMetric(float64(aAhead)/float64(b.N), "a-plans-before-b")
}
