package comments

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// A secret a command printed base64- or hex-encoded, alone or inside a
// longer encoded stream (any alignment, wrapped at 76 columns like base64
// does), is scrubbed too.
func TestRedactsEncodedSecrets(t *testing.T) {
	const sec = "sk-e2e-not-a-real-key-0123456789abcdef"
	r := NewRedactor(sec)
	for pre := 0; pre < 3; pre++ {
		raw := strings.Repeat("x", pre) + "WARDEN_LLM_API_KEY=" + sec + "\x00PATH=/usr/bin"
		for name, enc := range map[string]string{
			"base64":      base64.StdEncoding.EncodeToString([]byte(raw)),
			"base64url":   base64.URLEncoding.EncodeToString([]byte(raw)),
			"hex":         hex.EncodeToString([]byte(raw)),
			"HEX":         strings.ToUpper(hex.EncodeToString([]byte(raw))),
			"MiXeD hex":   mixCase(hex.EncodeToString([]byte(raw))),
			"wrapped hex": wrap(mixCase(hex.EncodeToString([]byte(raw))), 16),
			"wrapped":     wrap(base64.StdEncoding.EncodeToString([]byte(raw)), 20),
		} {
			out := r.Redact("output:\n" + enc + "\n")
			if !strings.Contains(out, Redacted) || decodesTo(out, sec) {
				t.Errorf("%s at %d: %q", name, pre, out)
			}
		}
	}
	if got := r.Redact("ordinary text stays"); got != "ordinary text stays" {
		t.Fatalf("%q", got)
	}
}

// mixCase upper-cases every other letter (issue #26 item 7: hex redaction
// covered only all-lower and all-upper).
func mixCase(s string) string {
	b, n := []byte(s), 0
	for i := range b {
		if b[i] >= 'a' && b[i] <= 'f' {
			if n%2 == 0 {
				b[i] -= 'a' - 'A'
			}
			n++
		}
	}
	return string(b)
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return b.String() + s
}

// decodesTo reports whether any line of out still decodes to text holding sec.
func decodesTo(out, sec string) bool {
	joined := strings.ReplaceAll(out, "\n", "")
	for _, f := range strings.Fields(joined) {
		for _, dec := range []func(string) ([]byte, error){base64.StdEncoding.DecodeString, base64.URLEncoding.DecodeString, hex.DecodeString, func(s string) ([]byte, error) { return hex.DecodeString(strings.ToLower(s)) }} {
			if b, err := dec(f); err == nil && strings.Contains(string(b), sec) {
				return true
			}
		}
	}
	return false
}
