//go:build !cgo

package repoindex

import (
	"regexp"
	"strings"
)

// Parser names which definition parser this build uses: without cgo (the
// static container build) tree-sitter cannot link, so definitions of the
// other languages come from line patterns, with ranges up to the next one.
const Parser = "patterns"

var defPatterns = map[string]*regexp.Regexp{
	"python":     regexp.MustCompile(`^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)`),
	"javascript": regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(function\*?|class)\s+([A-Za-z_$][\w$]*)`),
	"typescript": regexp.MustCompile(`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)`),
	"rust":       regexp.MustCompile(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(fn|struct|enum|trait|mod|impl(?:<[^>]*>)?)\s+([A-Za-z_]\w*)`),
	"java":       regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)*(class|interface|enum|record|[\w<>\[\],\s]+?)\s+([A-Za-z_]\w*)\s*[({<]`),
}

// methodPattern finds class methods in JavaScript and TypeScript: an
// indented name, its parameters and an opening brace.
var methodPattern = regexp.MustCompile(`^\s+(?:(?:public|private|protected|static|async|readonly)\s+)*()([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::\s*[^{]+)?\{`)

func otherDefs(lang string, src []byte) []Def {
	if lang == "tsx" {
		lang = "typescript"
	}
	re := defPatterns[lang]
	if re == nil {
		return nil
	}
	script := lang == "javascript" || lang == "typescript"
	lines := strings.Split(string(src), "\n")
	var defs []Def
	for i, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil && script {
			if m = methodPattern.FindStringSubmatch(l); m != nil {
				m[1] = "method"
			}
		}
		if m == nil || m[2] == "if" || m[2] == "for" || m[2] == "while" || m[2] == "switch" {
			continue
		}
		kind := strings.Fields(m[1])[0]
		if len(defs) > 0 && defs[len(defs)-1].End == 0 {
			defs[len(defs)-1].End = i
		}
		defs = append(defs, Def{Name: m[2], Kind: kind, Start: i + 1})
	}
	if len(defs) > 0 && defs[len(defs)-1].End == 0 {
		defs[len(defs)-1].End = len(lines)
	}
	return defs
}
