package agent

import (
	"embed"
	"regexp"
	"strings"
	"text/template"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("").Funcs(template.FuncMap{"join": strings.Join, "data": data}).ParseFS(promptFS, "prompts/*.tmpl"))

// issueTag matches the tags that fence the issue's text in a prompt.
var issueTag = regexp.MustCompile(`(?i)<(\s*/?\s*issue\b[^<>]*)>`)

// data quotes user-written text inside <issue> ... </issue>: verbatim, but
// a tag in it cannot close the fence early and pass what follows as
// instructions.
func data(s string) string { return issueTag.ReplaceAllString(s, "‹$1›") }

// IssueInput is the issue as the prompts quote it.
type IssueInput struct {
	Repo        string
	Number      int
	Title, Body string
}

// LimitsInput is the mode's limits as the prompts state them.
type LimitsInput struct {
	Mode               string
	MaxFiles, MaxLines int
	Protected          []string
	AllowTestChanges   bool
}

// PreviousAttempt is an earlier attempt's outcome, condensed.
type PreviousAttempt struct {
	Attempt                                         int
	Outcome, FailureClass, Obstacle, Recommendation string
	Summary                                         string
}

// File is a file's current content for an edit prompt.
type File struct {
	Path, Content      string
	Missing, Truncated bool
}

// PlanInput fills the plan prompt.
type PlanInput struct {
	Issue     IssueInput
	Limits    LimitsInput
	Tree      []string // the file list, when no repository view could be built
	Truncated bool
	Previous  []PreviousAttempt
	Feedback  string
	Context   string    // the repository view (repocontext), replacing Tree
	Comments  []Comment // trusted comments on the issue
	Reads     string    // what earlier "read" decisions returned
	ReadTurns int       // "read" decisions still allowed; 0 = plan now
	Guidance  string    // RenderGuidance of writers' `/warden steer` notes
}

// Comment is an issue comment by a user with write, maintain or admin
// permission, with hidden content already removed.
type Comment struct {
	Author, Date, Body string
}

// EditInput fills the implement prompt.
type EditInput struct {
	Issue    IssueInput
	Limits   LimitsInput
	Plan     Plan
	Files    []File
	Previous []PreviousAttempt
	Missing  string
}

// FixInput fills the fix prompt.
type FixInput struct {
	EditInput  EditInput
	TestOutput string
	Attempt    int
}

// ReviewInput fills the review prompt.
type ReviewInput struct {
	Issue    IssueInput
	Diff     string
	Guidance string // RenderGuidance of writers' `/warden steer` notes
}

// maxQuoted bounds tool output and diffs quoted in prompts (their tails matter most).
const maxQuoted = 16 << 10

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "[… earlier output cut …]\n" + strings.ToValidUTF8(s[len(s)-n:], "")
}

func render(name string, data any) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// RenderSystem is the system prompt.
func RenderSystem(repo string) string {
	s, _ := render("system.tmpl", struct{ Repo string }{repo})
	return s
}

// RenderPlan renders the plan prompt: the JSON reply, no SEARCH/REPLACE markers.
func RenderPlan(in PlanInput) (string, error) { return render("plan.tmpl", in) }

// RenderImplement renders the implement prompt.
func RenderImplement(in EditInput) (string, error) { return render("implement", in) }

// RenderFix renders the fix prompt; it quotes the failing test output.
func RenderFix(in FixInput) (string, error) {
	in.TestOutput = tail(in.TestOutput, maxQuoted)
	return render("fix", in)
}

// RenderReview renders the review prompt with the change as a unified diff.
func RenderReview(in ReviewInput) (string, error) {
	in.Diff = tail(in.Diff, 4*maxQuoted)
	return render("review.tmpl", in)
}

// EditFormat is the SEARCH/REPLACE format section, for follow-up turns of an
// edit conversation (feedback after a failed apply or a guard refusal).
func EditFormat() string {
	s, _ := render("format", nil)
	return s
}
