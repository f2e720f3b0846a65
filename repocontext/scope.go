package repocontext

import (
	"math"
	"path"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Many projects title an issue with the component it is about: "ignore:
// walker hangs", "Indentation: false positives…", "fix(har): off-by-one",
// "Bug: [no-unused-vars] false positive". The component is a directory, a
// file or a class of the repository, and the fix is most often inside it;
// the title's other words rarely say where (issue #30: checkstyle's check
// names matched no identifier, and the check's package ranked far down).

// Weights of a scope match: a file named after the scope is near-certain
// when few are; a directory of that name holds the component's files.
const (
	wScopeFile = 14
	wScopeDir  = 12
)

var (
	scopePrefix  = regexp.MustCompile(`^\[?([A-Za-z][A-Za-z0-9_.\-]*)\]?:\s`)
	scopeConvent = regexp.MustCompile(`^[a-z]+\(([A-Za-z0-9_.\-/]+)\)!?:\s`)
	scopeBracket = regexp.MustCompile(`\[([A-Za-z][A-Za-z0-9_.\-/]*)\]`)
)

// notScope are the words titles start with that say what kind of issue it
// is, not where.
var notScope = map[string]bool{
	"bug": true, "feature": true, "feat": true, "fix": true, "regression": true, "panic": true, "question": true,
	"docs": true, "doc": true, "chore": true, "enhancement": true, "proposal": true, "request": true, "help": true,
	"error": true, "warning": true, "issue": true, "rfc": true, "breaking": true, "perf": true, "refactor": true,
	"test": true, "tests": true, "ci": true, "build": true, "style": true, "discussion": true, "improvement": true,
	"idea": true, "suggestion": true, "security": true, "todo": true, "wip": true, "draft": true, "crash": true,
	"typo": true, "critical": true, "urgent": true, "important": true, "note": true, "update": true, "new": true,
}

// scopes are the components the title names: its "scope:" prefix, a
// conventional commit's "type(scope):", and bracketed words.
func scopes(title string) []string {
	var out []string
	add := func(s string) {
		s = strings.Trim(s, "./-_")
		if len(s) >= 2 && !notScope[strings.ToLower(s)] {
			out = append(out, s)
		}
	}
	if m := scopeConvent.FindStringSubmatch(title); m != nil {
		add(m[1])
	} else if m := scopePrefix.FindStringSubmatch(title); m != nil {
		add(m[1])
	}
	for _, m := range scopeBracket.FindAllStringSubmatch(title, -1) {
		add(m[1])
	}
	return out
}

// normScope folds the spellings of one name: "no-unused-vars",
// "no_unused_vars", "NoUnusedVars" and "nounusedvars" are the same.
func normScope(s string) string {
	return scopeFold.Replace(strings.ToLower(s))
}

// scopeFold is built once: normScope runs for every directory of every
// file of the index.
var scopeFold = strings.NewReplacer("-", "", "_", "", ".", "")

// scopeSignals boosts the files named after a scope of the title
// ("no-unused-vars.ts", "IndentationCheck.java": the name, or the name and
// one more word) and, less, the files under a directory of that name.
func scopeSignals(x *repoindex.Index, q Query, s []Scored) {
	for _, sc := range scopes(q.Title()) {
		want := normScope(sc)
		var named, under []int
		for i, f := range x.Files {
			if namedAfter(path.Base(f.Path), sc, want) {
				named = append(named, i)
			}
			if inDirNamed(f.Path, want) {
				under = append(under, i)
			}
		}
		if len(named) > 0 {
			w := wScopeFile / math.Sqrt(float64(len(named)))
			for _, i := range named {
				s[i].Score += w
			}
		}
		for _, i := range under {
			s[i].Score += wScopeDir
		}
	}
}

// namedAfter says whether a file's name is the scope's, or the scope's
// followed by one more word of a compound name ("IndentationCheck",
// "har_router"), not a longer word ("harness").
func namedAfter(base, scope, want string) bool {
	stem := base
	if i := strings.IndexByte(base, '.'); i > 0 {
		stem = base[:i]
	}
	if normScope(stem) == want {
		return true
	}
	if !strings.HasPrefix(stem, scope) || len(stem) == len(scope) {
		return false
	}
	next := stem[len(scope)]
	return next >= 'A' && next <= 'Z' || next == '_' || next == '-'
}

// inDirNamed says whether a directory on the path is named want (folded).
func inDirNamed(p, want string) bool {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if normScope(path.Base(d)) == want {
			return true
		}
	}
	return false
}
