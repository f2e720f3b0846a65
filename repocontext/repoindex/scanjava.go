package repoindex

import "strings"

var javaMods = set("public", "private", "protected", "static", "final", "abstract", "synchronized", "native",
	"default", "strictfp", "sealed", "non", "transient", "volatile")

var javaKinds = map[string]string{"class": "class", "interface": "interface", "enum": "enum", "record": "class"}

// notTypes are words that start a statement, never a method's return type.
var notTypes = set("return", "new", "throw", "else", "case", "yield", "assert", "if", "while", "for", "switch",
	"catch", "do", "try", "package", "import", "super", "this", "var")

func javaDef(t string, _ bool) (string, string, bool) {
	t = skipAnnotations(t)
	if t == "" || !isIdent(t[0]) {
		return "", "", false
	}
	t, mods := skipJavaMods(t)
	w, rest := word(t)
	if kind, ok := javaKinds[w]; ok {
		return named(rest, kind)
	}
	return javaMethod(skipAngles(t), mods)
}

// skipJavaMods drops modifiers, non-sealed included.
func skipJavaMods(t string) (string, int) {
	k := 0
	for {
		var n int
		t, n = skipWords(t, javaMods)
		k += n
		if !strings.HasPrefix(t, "-sealed") {
			return t, k
		}
		t = strings.TrimLeft(t[len("-sealed"):], " \t")
	}
}

// javaMethod is `Type name(` (a method) or, with a modifier or a capital
// and an opening brace, `Name(` (a constructor).
func javaMethod(t string, mods int) (string, string, bool) {
	i := strings.IndexByte(t, '(')
	if i <= 0 {
		return "", "", false
	}
	before := strings.TrimRight(t[:i], " \t")
	j := len(before)
	for j > 0 && isIdent(before[j-1]) {
		j--
	}
	n, typ := before[j:], strings.TrimSpace(before[:j])
	if n == "" || n[0] >= '0' && n[0] <= '9' || notTypes[n] {
		return "", "", false
	}
	if typ == "" {
		ctor := mods > 0 || isUpper(n[0]) && strings.HasSuffix(t, "{")
		return n, "method", ctor
	}
	if first, _ := word(typ); notTypes[first] || !typeChars(typ) {
		return "", "", false
	}
	return n, "method", true
}

func typeChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isIdent(c) && !strings.ContainsRune("<>,?[]. &", rune(c)) {
			return false
		}
	}
	return !strings.HasSuffix(s, ".")
}

// skipAnnotations drops leading annotations, @Name and @Name(…), but not
// @interface.
func skipAnnotations(t string) string {
	for strings.HasPrefix(t, "@") && !strings.HasPrefix(t, "@interface") {
		_, rest := word(t[1:])
		for strings.HasPrefix(rest, ".") { // @a.b.C
			_, rest = word(rest[1:])
		}
		if strings.HasPrefix(rest, "(") {
			k := closing(rest, '(', ')')
			if k < 0 {
				return ""
			}
			rest = strings.TrimLeft(rest[k+1:], " \t")
		}
		t = rest
	}
	return t
}
