package webhooks

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/jobs"
)

func errMissing(event string) error {
	return fmt.Errorf("%w: %s payload lacks repository, issue or sender", ErrMalformed, event)
}

var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// Commands returns the slash commands in a comment body: one per line, the
// line holding only `/<prefix> <verb>`, outside HTML comments and quotes.
// `/<prefix> steer <text>` is the last command: the rest of the comment is
// its text (SteerText), never more commands.
func Commands(prefix, body string) []string {
	cmds, _ := scan(prefix, body)
	return cmds
}

// SteerText is the text of a comment's `/<prefix> steer`: the rest of its
// line and every line after it.
func SteerText(prefix, body string) string {
	_, text := scan(prefix, body)
	return text
}

func scan(prefix, body string) (cmds []string, steerText string) {
	lines := strings.Split(htmlComment.ReplaceAllString(body, ""), "\n")
	inFence := false
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		f := strings.Fields(line)
		if inFence || len(f) < 2 || f[0] != "/"+prefix {
			continue
		}
		if f[1] == "steer" {
			rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, f[0])), "steer"))
			return append(cmds, "steer"), strings.TrimSpace(strings.Join(append([]string{rest}, lines[i+1:]...), "\n"))
		}
		switch f[1] {
		case "retry", "cancel", "status", "resume", "approve":
			if len(f) == 2 {
				cmds = append(cmds, f[1])
			}
		}
	}
	return cmds, ""
}

func (r *Router) issueComment(ctx context.Context, d Delivery) (Decision, error) {
	var ev issuePayload
	if err := decodePayload(d, &ev); err != nil {
		return Decision{}, err
	}
	if ev.Action != "created" {
		return ignored("only new comments carry commands"), nil
	}
	ic, valid := ev.context()
	if !valid {
		return Decision{}, errMissing("issue_comment")
	}
	if ic.issue.isPullRequest() {
		return r.prComment(ctx, d)
	}
	ic.commentAt = ev.Comment.CreatedAt
	cmds := Commands(r.Prefix, ev.Comment.Body)
	if len(cmds) == 0 || r.fromBot(ctx, ic.sender) || ic.issue.isPullRequest() {
		return ignored("no command"), nil
	}
	if ok, why := r.canWrite(ctx, ic.inst, ic.owner, ic.name, ic.sender); !ok {
		if r.Refusals != nil {
			if first, err := r.Refusals.FirstRefusal(ctx, ic.fullName(), ic.issue.Number, ic.sender); err != nil || !first {
				return refused(why), nil // told already (or cannot tell): no second reply
			}
		}
		return r.reply(ctx, ic, "refused", fmt.Sprintf("@%s Sorry, only users with write, maintain or admin permission can use `/%s` commands (%s).", ic.sender, r.Prefix, why))
	}
	var last Decision
	for _, cmd := range cmds {
		dec, err := r.command(ctx, ic, cmd, d.ID, ev.Comment.Body)
		if err != nil {
			return Decision{}, err
		}
		last = dec
	}
	return last, nil
}

func (r *Router) command(ctx context.Context, ic issueContext, cmd, delivery, body string) (Decision, error) {
	switch cmd {
	case "steer":
		return r.steer(ctx, ic, SteerText(r.Prefix, body), delivery)
	case "approve":
		return r.approve(ctx, ic, delivery)
	case "retry":
		mode, ambiguous := r.issueMode(ic.issue)
		if mode == "" || ambiguous {
			return r.reply(ctx, ic, "refused", fmt.Sprintf("`/%s retry` needs exactly one of the labels `%s:maintenance` or `%s:evolution` on the issue.", r.Prefix, r.Prefix, r.Prefix))
		}
		return r.queueIssue(ctx, ic, mode, jobs.ReasonRetry, delivery)
	case "cancel":
		return r.cancel(ctx, ic, "/"+r.Prefix+" cancel")
	case "status":
		mode, _ := r.issueMode(ic.issue)
		st := jobs.StatusPayload{Repo: ic.fullName(), Installation: ic.inst, Issue: ic.issue.Number, Mode: mode, State: "status"}
		if err := r.Queue.EnqueueStatus(ctx, st); err != nil {
			return Decision{}, unavailable("enqueue status", err)
		}
		return queued("status"), nil
	case "resume":
		// Only the commenter's installation: its writers cannot speak for another tenant.
		if err := r.Queue.Resume(ctx, ic.inst); err != nil {
			return Decision{}, unavailable("resume", err)
		}
		return r.reply(ctx, ic, "ok", "Warden resumed: the queue of this installation is running again.")
	}
	return Decision{}, errors.New("unknown command " + cmd)
}
