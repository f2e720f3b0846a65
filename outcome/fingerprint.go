package outcome

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// The normalizations of DESIGN.md §3, applied in order: the most specific
// shapes first, so a UUID is not eaten digit by digit.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}(\.\d+)?(z|[+-]\d{2}:?\d{2})?`), "<time>"},
	{regexp.MustCompile(`\b\d{2}:\d{2}:\d{2}(\.\d+)?\b`), "<time>"},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uuid>"},
	{regexp.MustCompile(`0x[0-9a-f]+`), "<addr>"},
	{regexp.MustCompile(`(/tmp|/var/folders|/private/var)/[^\s:'"]+`), "<tmp>"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`), "<dur>"},
	{regexp.MustCompile(`\b[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*\b|\b[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*\b`), "<hex>"},
	{regexp.MustCompile(`\d+`), "<n>"},
	{regexp.MustCompile(`\s+`), " "},
}

// Normalize strips what varies between two occurrences of the same failure.
func Normalize(msg string) string {
	s := strings.ToLower(msg)
	for _, n := range normalizers {
		if n.with == "<hex>" {
			s = n.re.ReplaceAllStringFunc(s, func(m string) string {
				if len(m) >= 7 {
					return "<hex>"
				}
				return m
			})
			continue
		}
		s = n.re.ReplaceAllString(s, n.with)
	}
	return Trim(strings.TrimSpace(s), 240)
}

// FingerprintKey is the readable form: stage|class|normalized message.
func FingerprintKey(stage string, class Class, msg string) string {
	return strings.ToLower(stage) + "|" + string(class) + "|" + Normalize(msg)
}

// Fingerprint is a short stable id of a failure.
func Fingerprint(stage string, class Class, msg string) string {
	sum := sha256.Sum256([]byte(FingerprintKey(stage, class, msg)))
	return hex.EncodeToString(sum[:6])
}

// ContractFingerprint identifies a contract failure by stage and category
// only: the model's text varies every time and must not split the count.
func ContractFingerprint(stage, category string) string {
	return Fingerprint(stage, ContractFailure, category)
}

var (
	goTestRE  = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): `)
	goPkgRE   = regexp.MustCompile(`(?m)^(ok|FAIL)\s+\S+\s+(\(cached\)|[\d.]+s)`)
	noTestsRE = regexp.MustCompile(`(?m)\[no test files\]|^testing: warning: no tests to run`)
)

// CountGoTests estimates how many tests a `go test` run executed: -1 when the
// output is not go test's, 0 when it ran none.
func CountGoTests(output string) int {
	if n := len(goTestRE.FindAllString(output, -1)); n > 0 {
		return n
	}
	if n := len(goPkgRE.FindAllString(output, -1)); n > 0 {
		return n
	}
	if noTestsRE.MatchString(output) {
		return 0
	}
	return -1
}
