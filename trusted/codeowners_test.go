package trusted

import (
	"slices"
	"testing"
)

// CODEOWNERS is the default branch's, from the first of GitHub's places
// that has one; a checkout's copy changes nothing.
func TestCodeOwnersFromTheBaseInGitHubsOrder(t *testing.T) {
	dir, base := repo(t, map[string]string{
		"CODEOWNERS":         "* @root-owner\n",
		".github/CODEOWNERS": "*.go @gopher\n",
		"docs/CODEOWNERS":    "* @docs-owner\n",
	})
	write(t, dir, map[string]string{".github/CODEOWNERS": "* @checkout-owner\n"})
	in := read(t, dir, base)
	if in.CodeOwnersPath != ".github/CODEOWNERS" {
		t.Fatalf("read %q, want .github/CODEOWNERS (GitHub's first place)", in.CodeOwnersPath)
	}
	if got := in.CodeOwners.Owners("a/b.go"); !slices.Equal(got, []string{"@gopher"}) {
		t.Errorf("owners of a/b.go = %v", got)
	}
}

// A symbolic link at a CODEOWNERS place is not followed: the next place counts.
func TestCodeOwnersSymlinkIsAbsent(t *testing.T) {
	dir, base := repo(t, map[string]string{
		"elsewhere":          "* @attacker\n",
		".github/CODEOWNERS": "->../elsewhere",
		"docs/CODEOWNERS":    "* @docs-owner\n",
	})
	in := read(t, dir, base)
	if in.CodeOwnersPath != "docs/CODEOWNERS" || !slices.Equal(in.CodeOwners.Owners("x"), []string{"@docs-owner"}) {
		t.Fatalf("read %q owners %v", in.CodeOwnersPath, in.CodeOwners.Owners("x"))
	}
}

func TestNoCodeOwners(t *testing.T) {
	dir, base := repo(t, map[string]string{"a.go": "package a\n"})
	if in := read(t, dir, base); in.CodeOwners != nil || in.CodeOwners.Owners("a.go") != nil {
		t.Fatalf("owners where the base has no CODEOWNERS: %+v", in.CodeOwners)
	}
}
