package fakegithub

import (
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Repo is one repository's state.
type Repo struct {
	ID                                   int64
	Owner, Name, CloneURL, DefaultBranch string
	issues                               map[int]*Issue
	comments                             []*Comment
	pulls                                map[int]*Pull
	statuses                             map[string][]Status
	checks                               map[string][]CheckRun
	perms                                map[string]string
	reviews                              map[int][]Review
	subIssues                            map[int][]int64
	reviewComments                       []*ReviewComment
	jobLogs                              map[int64]string
	reactions                            []*Reaction
	nextNumber                           int
	rules                                rulesState
	auto                                 autoMergeState
	labels                               map[string]bool // every label the repository has (know)
	apiCommits                           map[string]bool // commits made through the Git Database API → signed
	created                              []CreatedCheckRun
	teams                                map[string]bool // team slugs with access (AddTeam)
}

// Issue is an issue.
type Issue struct {
	ID                         int64
	Number                     int
	Title, Body, State, Author string
	Labels                     []string
}

// Comment is an issue comment.
type Comment struct {
	ID           int64
	Issue        int
	Body, Author string
	Created      time.Time
	Edits        int
}

// Pull is a pull request.
type Pull struct {
	ID                             int64
	Number                         int
	Title, Body, Head, Base, State string
	HeadSHA, Author                string
	Merged                         bool
	Labels                         []string
	// Mergeable is what a test set: nil answers as GitHub computes it
	// (pulls.go, mergeable); Computing counts the GETs that still answer null.
	Mergeable *bool
	Computing int
	// MergedWith is the merge_method of the merge call that merged it, or
	// "queue" when the merge queue merged it.
	MergedWith string
	// QueuedHead is the expectedHeadOid of the last enqueuePullRequest.
	QueuedHead string
	// AutoMerge is native auto-merge, as enablePullRequestAutoMerge and
	// disablePullRequestAutoMerge left it.
	AutoMerge bool
	// Requested and RequestedTeams are who is asked to review (logins,
	// team slugs), as review requests left them.
	Requested, RequestedTeams []string
	reviewCalls               int
	// MergeCalls counts the merge calls GitHub answered, whatever the answer.
	MergeCalls int
}

// Status is a commit status.
type Status struct{ State, Context, Description, Creator string }

// CheckRun is a check run; App is its App's slug (GitHub Actions' runs
// are "github-actions"), Output and Annotations what it reported.
type CheckRun struct {
	Name, Status, Conclusion string
	App                      string
	Output                   CheckOutput
	Annotations              []Annotation
	ID                       int64
}

// Review is a pull request review.
type Review struct {
	ID                    int64
	User, State, CommitID string
}

// AddRepo creates a repository served from cloneURL (a file:// bare repo).
func (s *Server) AddRepo(owner, name, cloneURL, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[owner+"/"+name] = &Repo{ID: s.id(), Owner: owner, Name: name, CloneURL: cloneURL, DefaultBranch: defaultBranch,
		issues: map[int]*Issue{}, pulls: map[int]*Pull{}, statuses: map[string][]Status{}, checks: map[string][]CheckRun{},
		perms: map[string]string{}, reviews: map[int][]Review{}, subIssues: map[int][]int64{}, jobLogs: map[int64]string{}, nextNumber: 1000}
}

// Repo returns a repository (copy of its identity).
func (s *Server) Repo(full string) Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[full]
	return Repo{ID: r.ID, Owner: r.Owner, Name: r.Name, CloneURL: r.CloneURL, DefaultBranch: r.DefaultBranch}
}

// AddIssue creates an open issue, or adds labels to an existing one.
func (s *Server) AddIssue(repo string, n int, title, body, author string, labels ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	r.know(labels...)
	if is, ok := r.issues[n]; ok {
		for _, l := range labels {
			if !slices.Contains(is.Labels, l) {
				is.Labels = append(is.Labels, l)
			}
		}
		is.State = "open"
		return
	}
	r.issues[n] = &Issue{ID: s.id(), Number: n, Title: title, Body: body, State: "open", Author: author, Labels: append([]string{}, labels...)}
}

// SetTitle renames an issue, as its author editing it would.
func (s *Server) SetTitle(repo string, n int, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].issues[n].Title = title
}

// SetBody replaces an issue's body, as a person editing it would.
func (s *Server) SetBody(repo string, n int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].issues[n].Body = body
}

// CloseIssue closes an issue.
func (s *Server) CloseIssue(repo string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].issues[n].State = "closed"
}

// SetPermission gives user a role (admin, maintain, write, triage, read, none).
func (s *Server) SetPermission(repo, user, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[repo].perms[user] = role
}

// AddReview records a review and returns its id.
func (s *Server) AddReview(repo string, pr int, user, state, commitSHA string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	id := s.id()
	r.reviews[pr] = append(r.reviews[pr], Review{ID: id, User: user, State: state, CommitID: commitSHA})
	return id
}

// SetCheckRun sets (or replaces, by name) a check run on sha.
func (s *Server) SetCheckRun(repo, sha, name, status, conclusion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	runs := slices.DeleteFunc(r.checks[sha], func(c CheckRun) bool { return c.Name == name })
	r.checks[sha] = append(runs, CheckRun{Name: name, Status: status, Conclusion: conclusion, ID: s.id()})
}

// SetStatus adds a commit status as user.
func (s *Server) SetStatus(repo, sha, context, state, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	r.statuses[sha] = append(r.statuses[sha], Status{State: state, Context: context, Creator: user})
}

// RemoveLabel takes a label off an issue (as a maintainer would).
func (s *Server) RemoveLabel(repo string, n int, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repos[repo].issues[n]
	is.Labels = slices.DeleteFunc(is.Labels, func(l string) bool { return l == label })
}

// Issue returns a copy of an issue.
func (s *Server) Issue(repo string, n int) Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.repos[repo].issues[n]
}

// Labels returns an issue's labels.
func (s *Server) Labels(repo string, n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is, ok := s.repos[repo].issues[n]; ok {
		return append([]string(nil), is.Labels...)
	}
	return nil
}

// Comments returns an issue's comments, oldest first.
func (s *Server) Comments(repo string, n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.repos[repo].comments {
		if c.Issue == n {
			out = append(out, *c)
		}
	}
	return out
}

// Pulls returns every pull request, with heads refreshed.
func (s *Server) Pulls(repo string) []Pull {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	var out []Pull
	for _, n := range sortedKeys(r.pulls) {
		p := r.pulls[n]
		s.refresh(r, p)
		out = append(out, *p)
	}
	return out
}

// Statuses returns the statuses set on sha, oldest first.
func (s *Server) Statuses(repo, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.repos[repo].statuses[sha]...)
}

// SubIssues returns the sub-issue ids linked to an issue.
func (s *Server) SubIssues(repo string, n int) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.repos[repo].subIssues[n]...)
}

// refresh reads an open PR's head SHA from the bare repository.
func (s *Server) refresh(r *Repo, p *Pull) {
	if p.State != "open" {
		return
	}
	if sha := headSHA(r.CloneURL, p.Head); sha != "" {
		p.HeadSHA = sha
	}
}

func headSHA(cloneURL, branch string) string {
	bare := strings.TrimPrefix(cloneURL, "file://")
	out, err := exec.Command("git", "--git-dir="+bare, "rev-parse", "--verify", "refs/heads/"+branch).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// IssuesTitled returns the repository's issues with the given title.
func (s *Server) IssuesTitled(repo, title string) []Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Issue
	for _, is := range s.repos[repo].issues {
		if is.Title == title {
			out = append(out, *is)
		}
	}
	return out
}
