package codeowners

import (
	"slices"
	"testing"
)

// The example CODEOWNERS of GitHub's documentation ("About code owners"),
// its owners shortened, with the matches the documentation states for it.
const example = `# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/* docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
/src/a\#b.py @hash
`

func TestOwnersAsGitHubDocumentsThem(t *testing.T) {
	f, bad := Parse([]byte(example))
	if len(bad) > 0 {
		t.Fatalf("bad patterns %v", bad)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"README.md", []string{"@global-owner1", "@global-owner2"}},
		{"web/app.js", []string{"@js-owner"}},           // *.js anywhere; the inline comment is not an owner
		{"main.go", []string{"docs@example.com"}},       // last match wins over *
		{"notes/a.txt", []string{"@octo-org/octocats"}}, // a team
		{"build/logs/x/y.log", []string{"@octocat"}},    // **/logs comes later and matches too
		{"build/out.bin", []string{"@global-owner1", "@global-owner2"}},
		{"docs/getting-started.md", []string{"@doctocat"}}, // /docs/ is later than docs/*
		{"docs/build-app/troubleshooting.md", []string{"@doctocat"}},
		{"scripts/deploy.sh", []string{"@doctocat", "@octocat"}},
		{"deeply/nested/logs/a.txt", []string{"@octocat"}},
		{"deeply/nested/apps/x.py", []string{"@octocat"}}, // apps/ at any depth
		{"apps/github/main.rb", nil},                      // a line with no owners takes ownership away
		{"apps/other/main.rb", []string{"@octocat"}},
		{"src/a#b.py", []string{"@hash"}},
	} {
		if got := f.Owners(c.path); !slices.Equal(got, c.want) {
			t.Errorf("Owners(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}

// docs/* covers the directory's own files only, not its subdirectories'.
func TestStarAfterADirectoryStaysInIt(t *testing.T) {
	f, _ := Parse([]byte("docs/* @a\n"))
	if got := f.Owners("docs/x.md"); !slices.Equal(got, []string{"@a"}) {
		t.Errorf("docs/x.md: %v", got)
	}
	if got := f.Owners("docs/sub/x.md"); got != nil {
		t.Errorf("docs/sub/x.md: %v, want no owner", got)
	}
	if got := f.Owners("other/docs/x.md"); got != nil {
		t.Errorf("other/docs/x.md: %v, want no owner (a pattern with a slash is anchored)", got)
	}
}

// A pattern without a slash matches a file or directory of that name at any depth.
func TestBareNameMatchesAtAnyDepth(t *testing.T) {
	f, _ := Parse([]byte("Makefile @m\n/root.txt @r\n"))
	for path, want := range map[string][]string{"Makefile": {"@m"}, "a/b/Makefile": {"@m"}, "root.txt": {"@r"}, "a/root.txt": nil} {
		if got := f.Owners(path); !slices.Equal(got, want) {
			t.Errorf("Owners(%q) = %v, want %v", path, got, want)
		}
	}
}

// What CODEOWNERS does not support is reported, never guessed at.
func TestUnsupportedPatternsAreReported(t *testing.T) {
	f, bad := Parse([]byte("!a.go @x\n[ab].go @y\nc.go @z\n"))
	if !slices.Equal(bad, []string{"!a.go", "[ab].go"}) {
		t.Errorf("bad = %v", bad)
	}
	if got := f.Owners("a.go"); got != nil {
		t.Errorf("a.go: %v", got)
	}
}

func TestReviewersSplitsUsersAndTeams(t *testing.T) {
	users, teams := Reviewers([]string{"@alice", "@acme/core", "bob@example.com", "@", "@acme/"})
	if !slices.Equal(users, []string{"alice"}) || !slices.Equal(teams, []string{"core"}) {
		t.Errorf("users %v teams %v", users, teams)
	}
}
