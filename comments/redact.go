package comments

import (
	"context"
	"log/slog"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

var secretREs = []*regexp.Regexp{
	regexp.MustCompile(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}`),
	regexp.MustCompile(`\bsk-(ant-|proj-)?[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`(?i)(aws_secret_access_key\s*[=:]\s*)[A-Za-z0-9/+=]{30,}`),
	regexp.MustCompile(`(?i)\b(bearer|token)\s+[A-Za-z0-9._~+/=-]{16,}`),
	regexp.MustCompile(`(?i)(authorization:\s*)(basic|bearer|token)?\s*[A-Za-z0-9._~+/=-]{8,}`),
	regexp.MustCompile(`x-access-token:[^@\s]+@`),
	regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`),
}

// Redactor scrubs secrets from text: known shapes and the configured values.
type Redactor struct {
	secrets []string
	hexes   []*regexp.Regexp // the values hex-encoded, case-blind
}

// NewRedactor also scrubs the given values (those of 8 characters or more).
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) >= 8 {
			r.secrets = append(r.secrets, s)
			// A PEM key is also scrubbed line by line.
			for _, l := range strings.Split(s, "\n") {
				if len(strings.TrimSpace(l)) >= 16 {
					r.secrets = append(r.secrets, strings.TrimSpace(l))
				}
			}
		}
	}
	for _, s := range r.secrets {
		r.secrets = append(r.secrets, encodings(s)...)
		r.hexes = append(r.hexes, hexPattern(s))
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// Redact returns s with every secret replaced. A secret broken across a
// line break (wrapped tool output) is found too: the text is also scanned
// with line breaks removed, and matches are mapped back to the original.
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	// Wrapped secrets first, on the original text: a line-wise pass could
	// eat the first half of a wrapped token and hide the second.
	joined, index := joinLines(s)
	spans := r.spans(joined)
	out := []byte(s)
	for i := len(spans) - 1; i >= 0; i-- {
		a, b := index[spans[i][0]], index[spans[i][1]-1]+1
		out = append(out[:a], append([]byte(Redacted), out[b:]...)...)
	}
	return r.pass(string(out))
}

// pass replaces secrets that stand whole on their lines.
func (r *Redactor) pass(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	for _, re := range r.hexes {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	for _, re := range secretREs {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			if sm := re.FindStringSubmatch(m); len(sm) > 1 && (strings.HasSuffix(strings.ToLower(sm[1]), ": ") || strings.HasSuffix(sm[1], "=") || strings.HasSuffix(sm[1], ":")) {
				return sm[1] + Redacted
			}
			return Redacted
		})
	}
	return s
}

// spans finds secrets in the joined text that the line-wise pass missed.
func (r *Redactor) spans(joined string) [][2]int {
	var out [][2]int
	for _, sec := range r.secrets {
		for i := 0; ; {
			k := strings.Index(joined[i:], sec)
			if k < 0 {
				break
			}
			out = append(out, [2]int{i + k, i + k + len(sec)})
			i += k + len(sec)
		}
	}
	for _, re := range r.hexes {
		for _, m := range re.FindAllStringIndex(joined, -1) {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	for _, re := range secretREs[:4] { // token shapes; header shapes never wrap meaningfully
		for _, m := range re.FindAllStringIndex(joined, -1) {
			if !strings.Contains(joined[m[0]:m[1]], Redacted) {
				out = append(out, [2]int{m[0], m[1]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	merged := out[:0]
	for _, sp := range out {
		if n := len(merged); n > 0 && sp[0] < merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// joinLines removes line breaks, returning for each byte of the result its
// offset in s.
func joinLines(s string) (string, []int) {
	var b strings.Builder
	index := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			continue
		}
		b.WriteByte(s[i])
		index = append(index, i)
	}
	return b.String(), index
}

// RedactingHandler wraps a slog handler so no secret reaches the log.
func RedactingHandler(h slog.Handler, r *Redactor) slog.Handler { return &redactHandler{h, r} }

type redactHandler struct {
	slog.Handler
	r *Redactor
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Redact(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, h.r.Redact(err.Error()))
		}
	}
	return a
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &redactHandler{h.Handler.WithAttrs(clean), h.r}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{h.Handler.WithGroup(name), h.r}
}
