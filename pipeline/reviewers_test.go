package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/warden-bot/warden/effects"
	"github.com/warden-bot/warden/github/codeowners"
	"github.com/warden-bot/warden/trusted"
)

// Warden never asks itself, nor the PR's author, whatever CODEOWNERS says.
func TestReviewersLeaveOutWardenAndTheAuthor(t *testing.T) {
	h := &GitHubHost{BotLogin: "warden[bot]"}
	users, teams := h.reviewers([]string{"@Warden[bot]", "@carol", "@Author", "@acme/core", "ops@example.com"}, "author")
	if !slices.Equal(users, []string{"carol"}) || !slices.Equal(teams, []string{"core"}) {
		t.Fatalf("users %v teams %v", users, teams)
	}
}

// One request asks at most maxReviewers people and teams.
func TestReviewersAreCapped(t *testing.T) {
	var owners []string
	for i := range 40 {
		owners = append(owners, fmt.Sprintf("@u%d", i))
	}
	users, teams := (&GitHubHost{}).reviewers(owners, "")
	if len(users)+len(teams) != maxReviewers {
		t.Fatalf("%d asked, want %d", len(users)+len(teams), maxReviewers)
	}
}

// The owners of a change are those of each changed file, once each.
func TestOwnersOfTheChangedFiles(t *testing.T) {
	f, _ := codeowners.Parse([]byte("* @dave\n/calc/ @carol\n*.md @docs @carol\n"))
	in := &trusted.Inputs{CodeOwners: f}
	if got := ownersOf(in, []string{"calc/a.go", "README.md", "calc/b.go"}); !slices.Equal(got, []string{"@carol", "@docs"}) {
		t.Fatalf("owners %v", got)
	}
	if got := ownersOf(&trusted.Inputs{}, []string{"a.go"}); got != nil {
		t.Fatalf("owners without CODEOWNERS: %v", got)
	}
}

func TestAskedSentenceNamesWhoWasAskedAndWhoWasRefused(t *testing.T) {
	note := effects.Asked{Users: []string{"carol"}, Teams: []string{"core"}, Refused: []string{"@mallory"}}.Sentence("acme", "code owners of the changed files")
	for _, want := range []string{"Review requested from @carol, @acme/core (code owners of the changed files).", "GitHub refused to ask @mallory"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
}
