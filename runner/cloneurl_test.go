package runner

import "testing"

func TestCloneURLDerivedFromConfig(t *testing.T) {
	for _, tc := range []struct{ base, repo, want string }{
		{"https://github.com/", "acme/calc", "https://github.com/acme/calc.git"},
		{"https://github.com", "acme/calc.js", "https://github.com/acme/calc.js.git"},
		{"https://ghe.example.org/", "acme/calc.git", "https://ghe.example.org/acme/calc.git"},
		{"http://127.0.0.1:8080/git/", "a-b/c_d", "http://127.0.0.1:8080/git/a-b/c_d.git"},
	} {
		got, err := CloneURL(tc.base, tc.repo)
		if err != nil || got != tc.want {
			t.Errorf("CloneURL(%q, %q) = %q, %v; want %q", tc.base, tc.repo, got, err, tc.want)
		}
	}
	for _, repo := range []string{"", "acme", "acme/calc/x", "../x", "acme/..", "acme/.", "evil.com@x/y", "a/b?x", "a/b#c", "@evil.com/x", "a b/c"} {
		if got, err := CloneURL("https://github.com/", repo); err == nil {
			t.Errorf("CloneURL(%q) = %q, want an error", repo, got)
		}
	}
	for _, base := range []string{"file:///tmp/", "ext::sh -c id", "https://user:pw@github.com/", "github.com"} {
		if got, err := CloneURL(base, "acme/calc"); err == nil {
			t.Errorf("CloneURL(%q) = %q, want an error", base, got)
		}
	}
}
