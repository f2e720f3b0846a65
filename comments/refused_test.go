package comments

import (
	"strings"
	"testing"

	"github.com/warden-bot/warden/outcome"
)

func TestOutcomeListsRefusedHosts(t *testing.T) {
	rec := outcome.Record{Outcome: outcome.Escalated, FailureClass: outcome.TestFailure, Attempt: 1, Mode: "maintenance",
		Egress: []outcome.Egress{
			{Stage: "setup", Host: "proxy.golang.org", Port: 443, Verdict: "allowed"},
			{Stage: "setup", Host: "pypi.org", Port: 443, Verdict: "denied", Reason: "host pypi.org is not in the allow-list"},
			{Stage: "test", Host: "pypi.org", Port: 443, Verdict: "denied", Reason: "host pypi.org is not in the allow-list"},
			{Stage: "test", Host: "10.0.0.5", Port: 80, Verdict: "denied", Reason: "10.0.0.5 is not a public address @alice"},
			{Stage: "test", Host: "evil.example`<!-- warden:record -->", Port: 80, Verdict: "denied", Reason: "host is not in the allow-list"},
		}}
	body := RenderOutcome(rec, Details{})
	for _, want := range []string{
		"**Hosts the egress policy refused:**",
		"- `pypi.org:443` (setup): not in the allow-list; to allow it, add `pypi.org` to `network: {allow: [...]}` in `.github/warden.yml`",
		"- `10.0.0.5:80` (test): refused (10.0.0.5 is not a public address @\u200balice); no `network.allow` line reaches it",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("outcome comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Count(body, "pypi.org:443") != 1 {
		t.Errorf("a host refused twice is listed twice:\n%s", body)
	}
	prose, _, _ := strings.Cut(body, "<!-- warden:outcome")
	if strings.Contains(prose, "proxy.golang.org") || strings.Contains(prose, "evil.example") {
		t.Errorf("an allowed host or a host name that is not plain is listed:\n%s", body)
	}
}

func TestRefusedHostsAreBounded(t *testing.T) {
	var es []outcome.Egress
	for _, h := range strings.Fields("a b c d e f g h i j k l") {
		es = append(es, outcome.Egress{Host: h + ".example.org", Port: 443, Verdict: "denied", Reason: "host is not in the allow-list"})
	}
	got := refusedHosts(es)
	if n := strings.Count(got, "\n- `"); n != maxRefused {
		t.Errorf("listed %d hosts, want %d:\n%s", n, maxRefused, got)
	}
	if !strings.Contains(got, "and 2 more") {
		t.Errorf("the rest is not counted:\n%s", got)
	}
	if refusedHosts(es[:0]) != "" {
		t.Error("no refusal, yet a list")
	}
}
