package guards

import "regexp"

// Finding is a line that looks like a secret. The secret itself is never kept.
type Finding struct {
	Line int
	Kind string
}

var secretPatterns = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"GitHub token", regexp.MustCompile(`\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b`)},
	{"Anthropic key", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{"OpenAI key", regexp.MustCompile(`\bsk-(proj-)?[A-Za-z0-9_-]{20,}`)},
	{"AWS access key", regexp.MustCompile(`\b(AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{"private key", regexp.MustCompile(`-----BEGIN ([A-Z]+ )?PRIVATE KEY-----`)},
	{"Slack token", regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{"bearer token", regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{24,}`)},
}

// ScanSecrets reports added lines that look like credentials.
func ScanSecrets(lines []string) []Finding {
	var out []Finding
	for i, l := range lines {
		for _, p := range secretPatterns {
			if p.re.MatchString(l) {
				out = append(out, Finding{Line: i + 1, Kind: p.kind})
				break
			}
		}
	}
	return out
}
