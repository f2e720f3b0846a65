package repocontext

import (
	"path"
	"regexp"
	"strings"

	"github.com/warden-bot/warden/repocontext/repoindex"
)

// Trees around the code — documentation, shell completions, man-page
// templates, samples and examples — repeat the code's words (a flag's name,
// a command's help) without being where a fix goes. In large and CLI
// repositories they outranked the source (issue #30); they now rank below
// it unless the issue names them ("the zsh completion", "the example in
// docs/"). Generated and vendored files have their own kinds.

// peripheryFactor is their share of a score, as kindFactor's.
const peripheryFactor = 0.3

// peripheries maps a directory name to the word an issue uses for it.
var peripheries = map[string]string{
	"doc": "doc", "docs": "doc", "documentation": "doc", "site": "doc", "website": "doc", "xdoc": "doc", "xdocs": "doc",
	"completion": "completion", "completions": "completion", "complete": "completion",
	"man": "man", "manpages": "man", "man1": "man",
	"sample": "sample", "samples": "sample",
	"example": "example", "examples": "example", "_examples": "example",
}

// manPage: man-page sources and templates (fzf.1, git.1.txt, cmd.1.ronn).
var manPage = regexp.MustCompile(`\.[1-9](\.(txt|md|ronn|in|tmpl|adoc))?$|\.ronn$`)

// periphery is the word naming the peripheral tree p lies in, "" for
// files of the code itself.
func periphery(p string) string {
	if manPage.MatchString(path.Base(p)) {
		return "man"
	}
	for _, seg := range strings.Split(path.Dir(p), "/") {
		seg = strings.ToLower(seg)
		if w, ok := peripheries[seg]; ok {
			return w
		}
		// A compound name ("xdocs-examples", "api_docs") is peripheral
		// by its parts; "site" and "man" are not parts that say so
		// ("site-packages", "man-in-the-middle").
		for _, part := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
			if w, ok := peripheries[part]; ok && part != seg && part != "site" && w != "man" {
				return w
			}
		}
	}
	return ""
}

// mentions are how an issue names each periphery: its word or the word's
// forms ("completions", "documented", "man page"), not a longer word that
// starts the same ("docker", "<!DOCTYPE", "completely").
var mentions = map[string]*regexp.Regexp{
	"doc":        regexp.MustCompile(`\bdoc(s|uments?|umentation|umented)?\b`),
	"completion": regexp.MustCompile(`\bcompletions?\b`),
	"man":        regexp.MustCompile(`\bman[ -]?pages?\b|\bmanpage`),
	"sample":     regexp.MustCompile(`\bsample`),
	"example":    regexp.MustCompile(`\bexample`),
}

// demotePeriphery scales down the files of peripheral trees the issue does
// not name.
func demotePeriphery(x *repoindex.Index, q Query, s []Scored) {
	cache := map[string]bool{}
	for i, f := range x.Files {
		if s[i].Score == 0 || f.Kind == repoindex.Generated || f.Kind == repoindex.Vendored {
			continue
		}
		w := periphery(f.Path)
		if w == "" {
			continue
		}
		n, ok := cache[w]
		if !ok {
			n = names(q, w)
			cache[w] = n
		}
		if !n {
			s[i].Score *= peripheryFactor
		}
	}
}

// names says whether the issue names a peripheral tree: in its title, or
// more than once in its text. A single passing mention does not: bug
// templates make reporters write "I have read the documentation", and "for
// example" is prose, yet the fix of such an issue is in the code.
func names(q Query, w string) bool {
	re := mentions[w]
	return re.MatchString(strings.ToLower(q.Title())) || len(re.FindAllStringIndex(strings.ToLower(q.Text), 2)) > 1
}
