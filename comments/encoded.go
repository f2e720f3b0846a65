package comments

import (
	"encoding/base64"
	"encoding/hex"
	"regexp"
)

// minEncoded is the shortest encoded fragment worth scrubbing: shorter ones
// would match ordinary text.
const minEncoded = 12

// encodings are the forms a command can print a secret in to slip past a
// literal match: base64 (standard and URL alphabets) at each of the three
// alignments it can have inside a longer encoded stream. Hex is matched
// apart (hexPattern), in any mix of cases.
func encodings(secret string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for k := 0; k < 3; k++ {
			if f := aligned(enc, secret, k); len(f) >= minEncoded {
				out = append(out, f)
			}
		}
	}
	return out
}

// hexPattern matches secret hex-encoded in any mix of upper and lower case
// (`%X`, `xxd -u`, a hand-mixed dump): hex digits are case-blind.
func hexPattern(secret string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)` + hex.EncodeToString([]byte(secret)))
}

// aligned is the part of the encoding of secret, preceded by k other bytes,
// that depends on the secret's bytes alone.
func aligned(enc *base64.Encoding, secret string, k int) string {
	s := enc.EncodeToString(append(make([]byte, k), secret...))
	skip := []int{0, 2, 3}[k] // characters that mix in the preceding bytes
	full := (k + len(secret)) * 8 / 6
	if full <= skip {
		return ""
	}
	return s[skip:full]
}
