package repoindex

import "strings"

// A matcher reads one line, its indent removed (indented says whether it
// had one), and says whether a definition opens on it: the definition's
// name and kind, the kinds tree-sitter's defKinds give the same nodes.
type matcher func(text string, indented bool) (name, kind string, ok bool)

var scanners = map[string]matcher{
	"python":     pythonDef,
	"javascript": scriptDef,
	"typescript": scriptDef,
	"tsx":        scriptDef,
	"rust":       rustDef,
	"java":       javaDef,
}

func pythonDef(t string, _ bool) (string, string, bool) {
	if t[0] != 'd' && t[0] != 'c' && t[0] != 'a' {
		return "", "", false
	}
	w, rest := word(t)
	if w == "async" {
		w, rest = word(rest)
	}
	switch w {
	case "def":
		return named(rest, "func")
	case "class":
		return named(rest, "class")
	}
	return "", "", false
}

func named(rest, kind string) (string, string, bool) {
	n, _, ok := name(rest)
	return n, kind, ok
}

var rustMods = set("pub", "async", "unsafe", "const", "default", "extern")

var rustKinds = map[string]string{
	"fn": "func", "struct": "type", "enum": "enum", "trait": "trait", "mod": "mod", "union": "type",
}

func rustDef(t string, _ bool) (string, string, bool) {
	if !isIdent(t[0]) {
		return "", "", false
	}
	for {
		w, rest := word(t)
		if !rustMods[w] {
			break
		}
		t = rest
		if strings.HasPrefix(t, "(") { // pub(crate), pub(in path)
			i := strings.IndexByte(t, ')')
			if i < 0 {
				return "", "", false
			}
			t = strings.TrimLeft(t[i+1:], " \t")
		}
		if strings.HasPrefix(t, `"`) { // extern "C"
			i := strings.IndexByte(t[1:], '"')
			if i < 0 {
				return "", "", false
			}
			t = strings.TrimLeft(t[i+2:], " \t")
		}
	}
	w, rest := word(t)
	if kind, ok := rustKinds[w]; ok {
		return named(rest, kind)
	}
	switch {
	case w == "impl":
		return implName(rest)
	case w == "macro_rules" && strings.HasPrefix(rest, "!"):
		return named(strings.TrimLeft(rest[1:], " \t"), "macro")
	}
	return "", "", false
}

// implName is the type an impl block is for: Foo in `impl<T> Trait<T> for
// Foo<T>` and in `impl Foo`, as tree-sitter's "type" field names it
// (without its generic arguments).
func implName(rest string) (string, string, bool) {
	rest = skipAngles(rest)
	if i := strings.Index(rest, " for "); i >= 0 {
		rest = strings.TrimLeft(rest[i+5:], " \t")
	}
	rest = strings.TrimLeft(rest, "&*")
	for {
		n, after, ok := name(rest)
		if !ok {
			return "", "", false
		}
		if strings.HasPrefix(after, "::") { // a path: the last segment names it
			rest = after[2:]
			continue
		}
		return n, "impl", true
	}
}

// skipAngles drops a leading <…> (generic parameters).
func skipAngles(s string) string {
	if !strings.HasPrefix(s, "<") {
		return s
	}
	if i := closing(s, '<', '>'); i >= 0 {
		return strings.TrimLeft(s[i+1:], " \t")
	}
	return s
}
