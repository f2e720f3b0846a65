package webhooks

import (
	"encoding/json"
	"time"
)

// issuePayload is the part of an issues or issue_comment event that Warden
// reads. Decoding into it instead of go-github's event types keeps intake
// cheap: the full types allocate every field of the repository, issue and
// users (hundreds per delivery) only to drop them.
type issuePayload struct {
	Action       string        `json:"action"`
	Label        namedThing    `json:"label"`
	Comment      commentBody   `json:"comment"`
	Changes      issueChanges  `json:"changes"`
	Issue        *payloadIssue `json:"issue"`
	Repo         *payloadRepo  `json:"repository"`
	Sender       *payloadUser  `json:"sender"`
	Installation struct {
		ID int64 `json:"id"`
	} `json:"installation"`
}

// issueChanges is what an edit changed; Body is nil when the body did not.
type issueChanges struct {
	Body *struct {
		From string `json:"from"`
	} `json:"body"`
}

type namedThing struct {
	Name string `json:"name"`
}

type commentBody struct {
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
}

type payloadUser struct {
	Login string `json:"login"`
}

type payloadIssue struct {
	ID          int64            `json:"id"`
	Number      int              `json:"number"`
	Title       string           `json:"title"`
	Body        string           `json:"body"`
	User        payloadUser      `json:"user"`
	Labels      []namedThing     `json:"labels"`
	PullRequest *json.RawMessage `json:"pull_request"`
}

// isPullRequest: GitHub delivers PR conversation comments as issue comments.
func (i *payloadIssue) isPullRequest() bool {
	return i.PullRequest != nil && string(*i.PullRequest) != "null"
}

type payloadRepo struct {
	ID            int64       `json:"id"`
	Name          string      `json:"name"`
	Owner         payloadUser `json:"owner"`
	CloneURL      string      `json:"clone_url"`
	DefaultBranch string      `json:"default_branch"`
}

// issueContext is what every issue-scoped route needs from a payload.
type issueContext struct {
	inst        int64
	owner, name string
	issue       *payloadIssue
	repo        *payloadRepo
	sender      string
	commentAt   time.Time // a command comment's creation (GitHub's time)
}

func (ic issueContext) fullName() string { return ic.owner + "/" + ic.name }

func (p *issuePayload) context() (issueContext, bool) {
	if p.Repo == nil || p.Issue == nil || p.Sender == nil || p.Repo.Owner.Login == "" || p.Repo.Name == "" || p.Issue.Number <= 0 {
		return issueContext{}, false
	}
	return issueContext{
		inst: p.Installation.ID, owner: p.Repo.Owner.Login, name: p.Repo.Name,
		issue: p.Issue, repo: p.Repo, sender: p.Sender.Login,
	}, true
}
