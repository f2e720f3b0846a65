package effects

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v60/github"
)

// KindReply is the journal kind of Warden's answer in a review thread.
const KindReply = "reply"

// Reply is an answer in the thread of review comment InReplyTo. GitHub
// wants the commit and path of the comment answered alongside in_reply_to.
type Reply struct {
	InReplyTo int64  `json:"in_reply_to"`
	CommitID  string `json:"commit_id"`
	Path      string `json:"path"`
	Body      string `json:"body"`
	// By is Warden's login: the re-read looks for a reply by it.
	By string `json:"by"`
}

// ReplyKey is the idempotency key of the answer to comment id on PR n: a
// comment is answered once, whichever try or sweep gets there.
func ReplyKey(repo string, n int, id int64) string {
	return fmt.Sprintf("%s:%s#%d:%d", KindReply, repo, n, id)
}

// ReplyIntent is the intent to post r on PR n of repo. The body carries a
// hidden mark naming the comment answered: GitHub files a reply under its
// thread's first comment (in_reply_to_id names that one, not a reply it
// answers), so only the mark tells which comment of a thread Warden
// answered.
func ReplyIntent(repo string, installation int64, n int, r Reply) Intent {
	r.Body += "\n\n" + replyMark(r.InReplyTo)
	return Intent{Key: ReplyKey(repo, n, r.InReplyTo), Kind: KindReply, Repo: repo,
		Installation: installation, PR: n, SHA: r.CommitID, Reply: &r}
}

func replyMark(id int64) string { return fmt.Sprintf("<!-- warden:reply %d -->", id) }

var replyMarkRE = regexp.MustCompile(`<!-- warden:reply (\d+) -->`)

// answered is the comment a reply of Warden's answers: the one its mark
// names, or, for a reply without one (older versions), the one GitHub
// files it under when its text is legacy.
func answered(c *github.PullRequestComment, legacy string) int64 {
	if m := replyMarkRE.FindStringSubmatch(c.GetBody()); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		return id
	}
	if c.GetBody() == legacy {
		return c.GetInReplyTo()
	}
	return 0
}

// AnswerThread posts its reply through the journal (nil: none): nothing is
// posted when the answer was confirmed already, the intent is recorded
// before the POST and confirmed only when GitHub's answer shows the created
// reply. An error or an answer without it leaves the intent for the sweep,
// which re-reads the thread before posting again (RedriveReply). An intent
// still pending when the comment is answered again (the next follow-up
// after a lost confirmation) is re-read the same way: its POST may have
// landed.
func AnswerThread(ctx context.Context, j *Journal, g GitHub, it Intent) error {
	if j != nil {
		if done, err := j.Done(ctx, it.Key); err != nil || done {
			return err
		}
		owed, err := j.Pending(ctx, it.Key)
		if err != nil {
			return err
		}
		if owed {
			return RedriveReply(ctx, j, g, it)
		}
		if err := j.Begin(ctx, it); err != nil {
			return err
		}
	}
	return post(ctx, j, g, it)
}

// post makes the call of a recorded reply intent and confirms it from
// GitHub's answer.
func post(ctx context.Context, j *Journal, g GitHub, it Intent) error {
	owner, name, _ := strings.Cut(it.Repo, "/")
	got, err := g.postReply(ctx, owner, name, it.PR, *it.Reply)
	if err != nil {
		return err
	}
	if got.GetID() == 0 || got.GetInReplyTo() == 0 || answered(got, "") != it.Reply.InReplyTo {
		return fmt.Errorf("reply to review comment %d on %s#%d: GitHub's answer does not show it (id %d, in reply to %d)",
			it.Reply.InReplyTo, it.Repo, it.PR, got.GetID(), got.GetInReplyTo())
	}
	if j == nil {
		return nil
	}
	return j.Confirm(ctx, it.Key)
}

// RedriveReply finishes an unconfirmed reply: the POST may have reached
// GitHub with its answer lost, so the thread is read first, and a reply
// found there is confirmed instead of posted a second time.
func RedriveReply(ctx context.Context, j *Journal, g GitHub, it Intent) error {
	if it.Reply == nil {
		return j.Drop(ctx, it.Key) // written by no version of Warden: nothing to post
	}
	owner, name, _ := strings.Cut(it.Repo, "/")
	got, err := g.Replies(ctx, owner, name, it.PR, it.Reply.By, it.Reply.Body)
	if err != nil {
		return err
	}
	if got[it.Reply.InReplyTo] {
		return j.Confirm(ctx, it.Key)
	}
	if err := j.Begin(ctx, it); err != nil { // the intent this call stands for
		return err
	}
	return post(ctx, j, g, it)
}

// postReply answers through the review-comments endpoint, POST
// /repos/{owner}/{repo}/pulls/{n}/comments with in_reply_to: the dedicated
// …/comments/{id}/replies is not available to GitHub Apps
// (enabledForGitHubApps: false).
func (g GitHub) postReply(ctx context.Context, owner, name string, n int, r Reply) (*github.PullRequestComment, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments", owner, name, n)
	req, err := g.C.NewRequest(http.MethodPost, u, map[string]any{"body": r.Body, "in_reply_to": r.InReplyTo, "commit_id": r.CommitID, "path": r.Path})
	if err != nil {
		return nil, fmt.Errorf("reply request: %w", err)
	}
	var got github.PullRequestComment
	if _, err := g.C.Do(ctx, req, &got); err != nil {
		return nil, fmt.Errorf("reply to review comment %d on %s/%s#%d: %w", r.InReplyTo, owner, name, n, err)
	}
	return &got, nil
}

// Replies are the review comments of PR n that by answered (a reply with
// Warden's mark, or one without it whose text is body), by the comment
// they answer: the one re-read of a thread, for the sweep and
// for a follow-up recovered after a kill.
func (g GitHub) Replies(ctx context.Context, owner, name string, n int, by, body string) (map[int64]bool, error) {
	done := map[int64]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for range 50 {
		cs, resp, err := g.C.PullRequests.ListComments(ctx, owner, name, n, opts)
		if err != nil {
			return nil, fmt.Errorf("list review comments of %s/%s#%d: %w", owner, name, n, err)
		}
		for _, c := range cs {
			if c.GetUser().GetLogin() == by && c.GetInReplyTo() != 0 {
				if id := answered(c, body); id != 0 {
					done[id] = true
				}
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return done, nil
}
