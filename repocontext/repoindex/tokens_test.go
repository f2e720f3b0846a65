package repoindex

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// tokenizeRef is Tokenize as it was before its ASCII path: rune by rune,
// every word through SplitIdent's runes. The index's terms must not move.
func tokenizeRef(s string) []string {
	var out []string
	start := -1
	word := func(w string) {
		var parts []string
		for _, seg := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' }) {
			parts = append(parts, splitCase(seg)...)
		}
		if len(parts) > 1 {
			if t := strings.ToLower(w); keepRef(t) {
				out = append(out, t)
			}
		}
		for _, p := range parts {
			if t := strings.ToLower(p); keepRef(t) {
				out = append(out, t)
			}
		}
	}
	for i, r := range s {
		ident := r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case ident && start < 0:
			start = i
		case !ident && start >= 0:
			word(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		word(s[start:])
	}
	return out
}

func keepRef(t string) bool {
	_, stop := stopWordsRef[t]
	return len(t) >= 2 && len(t) <= 40 && !stop
}

// stopWordsRef is the stop-word list as it was, a map.
var stopWordsRef = map[string]struct{}{}

func init() {
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its may new now old see two way who did get got let put say she too use this that with have from they will would there their what about which when make like time just know take into your than them then some could these other only also very after most where should those being does such here much while over want been were each well even because doesn don isn it is in on of to be or as at by an if we my me no so do up https com www github`) {
		stopWordsRef[w] = struct{}{}
	}
}

var tokenSamples = []string{
	"the and for are but not you all any can had her was one our out has him his how its may new now old see two way who did get got let put say she too use this that with have from they will would there their what about which when make like time just know take into your than them then some could these other only also very after most where should those being does such here much while over want been were each well even because doesn don isn it is in on of to be or as at by an if we my me no so do up https com www github The AND Because theory",
	"parseHTTPHeader snake_case_name x HTTPServer_v2 __init__ _a_B_c ABC aBC AbC a1B2 V2Beta utf8Decode",
	"if let Some(x) = self.get(k) { return Err(\"cannot read the file\"); } // the BecauseOfIt",
	"Größe_Überschrift naïveCamelÉtat ΣΦΧ δέλτα ǅemal ﬁle x\xff\xfeyz \uFFFDword ab\u0301c",
	"_ __ ___ a_ _b 9 99 9a a9 A9b IDs IDsOf XMLHttpRequest2Factory getX getXY getXYz",
}

// Tokenize gives the same terms, in the same order, as the rune-by-rune
// tokenizer it replaced. WARDEN_TEST_DEFS_DIR names a checkout whose files
// are compared too.
func TestTokenizeEqualsReference(t *testing.T) {
	inputs := append([]string{}, tokenSamples...)
	if dir := os.Getenv("WARDEN_TEST_DEFS_DIR"); dir != "" {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, "/.git/") {
				if src, err := os.ReadFile(p); err == nil && len(src) <= maxIndexed {
					inputs = append(inputs, string(src))
				}
			}
			return nil
		})
	}
	for _, s := range inputs {
		if got, want := Tokenize(s), tokenizeRef(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%.80q)\n got %q\nwant %q", s, got, want)
		}
	}
	t.Logf("%d inputs compared", len(inputs))
}

func FuzzTokenize(f *testing.F) {
	for _, s := range tokenSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Tokenize(s), tokenizeRef(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q)\n got %q\nwant %q", s, got, want)
		}
	})
}
