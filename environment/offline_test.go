package environment

import (
	"strings"
	"testing"

	"github.com/warden-bot/warden/sandbox/egress"
)

// A setup that fails because the network was refused says so in one
// sentence naming the host and the setting that would have helped.
func TestNetworkFailureNamesTheSetting(t *testing.T) {
	const pipSetup = `python3 -m venv --system-site-packages "$VIRTUAL_ENV" && python3 -m pip install -e '.'`
	refused := []egress.Conn{{Host: "pypi.org", Port: 443, Verdict: egress.Deny, Reason: "host pypi.org is not in the allow-list"}}
	got := networkFailure(pipSetup, "ERROR: Could not find a version that satisfies the requirement attrs", refused)
	want := "The setup command failed for want of the network: it could not reach pypi.org:443 (host pypi.org is not in the allow-list); set WARDEN_PIP_INDEX_URL to a package mirror the workers can reach."
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if strings.Count(got, ". ") != 0 {
		t.Fatalf("more than one sentence: %s", got)
	}
	// The tool's own words, with no refusal seen by the proxy.
	got = networkFailure("npm ci --prefer-offline", "npm ERR! code ENOTFOUND\nnpm ERR! getaddrinfo ENOTFOUND registry.npmjs.org", nil)
	if !strings.Contains(got, "WARDEN_NPM_REGISTRY") || !strings.HasPrefix(got, "The setup command failed for want of the network") {
		t.Fatalf("npm: %s", got)
	}
	// A setup of no known tool names the egress allow-list.
	got = networkFailure("make deps", "curl: (6) Could not resolve host: example.org", nil)
	if !strings.Contains(got, "WARDEN_EGRESS_ALLOW") {
		t.Fatalf("make: %s", got)
	}
	// A failure that is not the network's is not called one.
	if got := networkFailure(pipSetup, "error: invalid command 'bdist_wheel'", []egress.Conn{{Host: "pypi.org", Port: 443, Verdict: egress.Allow}}); got != "" {
		t.Fatalf("a build failure was called a network one: %s", got)
	}
}
