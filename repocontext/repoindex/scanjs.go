package repoindex

import "strings"

var scriptMods = set("export", "default", "declare", "abstract", "async", "public", "private", "protected",
	"static", "readonly", "override", "get", "set", "accessor")

var scriptKinds = map[string]string{"class": "class", "interface": "interface", "enum": "enum"}

// classMember is the kind of a definition that is one only directly in a
// class's body (elsewhere the same line is a call).
const classMember = "method?"

// notMethods are words that open a block the way a method does.
var notMethods = set("if", "for", "while", "switch", "catch", "function", "return", "with", "else", "do", "try", "await", "new", "typeof", "yield", "throw")

func scriptDef(t string, indented bool) (string, string, bool) {
	if !isIdent(t[0]) && t[0] != '#' && t[0] != '*' {
		return "", "", false
	}
	t, mods := skipWords(t, scriptMods)
	w, rest := word(t)
	if kind, ok := scriptKinds[w]; ok {
		return named(rest, kind)
	}
	switch w {
	case "function":
		if strings.HasSuffix(rest, ";") { // an overload's signature
			return "", "", false
		}
		return named(strings.TrimLeft(rest, "* \t"), "func")
	case "type":
		if n, after, ok := name(rest); ok && (strings.HasPrefix(after, "=") || strings.HasPrefix(after, "<")) {
			return n, "type", true
		}
		return "", "", false
	case "const", "let", "var":
		if w2, rest2 := word(rest); w2 == "enum" {
			return named(rest2, "enum")
		}
		return arrowDef(rest)
	}
	if indented || mods > 0 {
		return methodDef(t)
	}
	return "", "", false
}

// arrowDef is `name = (…) =>`, `name = async …` or `name = function`: a
// variable whose value is a function, as tree-sitter keeps them.
func arrowDef(rest string) (string, string, bool) {
	n, after, ok := name(rest)
	if !ok {
		return "", "", false
	}
	i := strings.IndexByte(after, '=')
	if i < 0 || i+1 < len(after) && (after[i+1] == '=' || after[i+1] == '>') {
		return "", "", false
	}
	v := strings.TrimLeft(after[i+1:], " \t")
	switch {
	case strings.HasPrefix(v, "function"), strings.HasPrefix(v, "async"):
		return n, "func", true
	case strings.HasPrefix(v, "(") || strings.HasPrefix(v, "<"):
		// The arrow follows the parameters: `(a) => …`, `(a): T => …`,
		// not `(a || b).map(x => …)`.
		if end := closing(v, '(', ')'); end >= 0 {
			rest := strings.TrimLeft(v[end+1:], " \t")
			return n, "func", strings.HasPrefix(rest, "=>") || strings.HasPrefix(rest, ":") && strings.Contains(rest, "=>")
		}
		return "", "", false
	default:
		if p, after, ok := name(v); ok && p != "" && strings.HasPrefix(after, "=>") {
			return n, "func", true
		}
	}
	return "", "", false
}

// methodDef is a class or object method: `name(…) {` or `name<T>(…): T {`.
func methodDef(t string) (string, string, bool) {
	t = strings.TrimPrefix(t, "*")
	t = strings.TrimPrefix(t, "#") // a private #name
	n, after, ok := name(t)
	if !ok || notMethods[n] {
		return "", "", false
	}
	after = strings.TrimPrefix(after, "?")
	after = skipAngles(after)
	if after == "(" { // parameters on the lines after: a method only in a class body
		return n, classMember, true
	}
	if !strings.HasPrefix(after, "(") || !strings.HasSuffix(after, "{") ||
		strings.Contains(after, "=>") || strings.Contains(after, "function") {
		return "", "", false
	}
	// The parameters close before the body opens, a return type between:
	// `f({` is a call with an object.
	end := closing(after, '(', ')')
	if end < 0 {
		return "", "", false
	}
	rest := strings.TrimSpace(after[end+1 : len(after)-1])
	return n, "method", rest == "" || strings.HasPrefix(rest, ":")
}

// closing is the index of the bracket that closes s's first open one
// (open and shut name the pair), -1 when it does not close on this line.
func closing(s string, open, shut byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case shut:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}
