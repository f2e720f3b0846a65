package dashboard

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/comments"
	"github.com/warden-bot/warden/jobs"
	"github.com/warden-bot/warden/outcome"
)

// The reasons shown are built from Warden's own vocabulary (modes, queue
// reasons, outcomes, failure classes, stage names, issue numbers) and its
// own notes, never from an issue's or the model's text: the dashboard
// quotes no one.

var reasons = map[string]string{
	jobs.ReasonLabel: "labelled", jobs.ReasonRetry: "retry asked", jobs.ReasonUnblock: "its blocker closed",
	jobs.ReasonDeferred: "deferred earlier", jobs.ReasonChild: "sub-issue", jobs.ReasonCheck: "CI fix",
	jobs.ReasonFollowup: "follow-up on its PR",
}

func modeWord(m string) string {
	if m == "maintenance" || m == "evolution" {
		return m
	}
	return "run"
}

func runningWhy(t queuedTask) string {
	if t.info == nil {
		return "working"
	}
	return "working (" + modeWord(t.p.Mode) + ", " + reason(t.p) + ")"
}

func reason(p jobs.RunPayload) string {
	r := reasons[p.Reason]
	if r == "" {
		r = "queued"
	}
	if p.Reason == jobs.ReasonChild && p.Parent > 0 {
		r = fmt.Sprintf("sub-issue of #%d", p.Parent)
	}
	if p.Reason == jobs.ReasonFollowup && p.PR > 0 {
		r = fmt.Sprintf("follow-up on PR #%d", p.PR)
	}
	return r
}

func queuedWhy(p jobs.RunPayload) string { return modeWord(p.Mode) + ", " + reason(p) }

func deferredWhy(t queuedTask) string {
	return fmt.Sprintf("%s, deferral %d, runs again at %s UTC", modeWord(t.p.Mode), t.p.Deferrals, t.at.UTC().Format("2006-01-02 15:04"))
}

var (
	word     = regexp.MustCompile(`^[a-z][a-z_]{0,40}$`)
	issueRef = regexp.MustCompile(`^#[1-9][0-9]{0,9}$`)
	stage    = regexp.MustCompile(`^[A-Z][a-z]{1,15}$`)
)

func blockedWhy(rec outcome.Record) string {
	why := "waits for a maintainer's decision"
	if issueRef.MatchString(rec.Obstacle.Task) {
		why = "waits for " + rec.Obstacle.Task
	}
	if word.MatchString(rec.Obstacle.Kind) {
		why += " (" + rec.Obstacle.Kind + ")"
	}
	return why
}

func escalatedWhy(rec outcome.Record) string {
	why := "needs a maintainer"
	if word.MatchString(string(rec.FailureClass)) {
		why = "`" + string(rec.FailureClass) + "`"
	}
	if stage.MatchString(rec.Stage) {
		why += " in " + rec.Stage
	}
	if rec.Attempt > 0 {
		why += fmt.Sprintf(", attempt %d", rec.Attempt)
	}
	if word.MatchString(rec.Obstacle.Kind) && rec.Obstacle.Kind != string(rec.FailureClass) {
		why += " (" + rec.Obstacle.Kind + ")"
	}
	if rec.PR > 0 {
		why += fmt.Sprintf(", PR #%d", rec.PR)
	}
	return why
}

// noteMarker opens the lifecycle's note in the status comment (comments).
const noteMarker = "<!-- warden:note -->"

// maxNote bounds a PR's reason on the dashboard.
const maxNote = 300

// waitingWhy is the note the lifecycle last wrote on the issue's status
// comment (why the PR is not merged yet), else what the mode waits for.
func (b *Board) waitingWhy(ctx context.Context, repo string, issue int, rec outcome.Record) string {
	if b.Memo != nil {
		if _, body, ok := b.Memo.Last(ctx, repo, issue); ok {
			if _, note, found := strings.Cut(body, noteMarker); found {
				if s := oneLine(note); s != "" {
					return s
				}
			}
		}
	}
	if rec.Mode == "evolution" {
		return "waits for a writer's approving review"
	}
	return "waits for its checks"
}

// oneLine is a note as one line of prose: markers neutralised, mentions
// kept from pinging, cut to maxNote characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxNote {
		s = string(r[:maxNote]) + "…"
	}
	return strings.ReplaceAll(comments.Neutralize(s), "@", "@\u200b")
}
