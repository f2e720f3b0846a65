package setup

import (
	"io"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	env := map[string]string{"WARDEN_PUBLIC_URL": "https://warden.example.com", "WARDEN_GITHUB_URL": "https://ghe.example.com/",
		"WARDEN_GITHUB_API_URL": "https://ghe.example.com/api/v3/"}
	getenv := func(k string) string { return env[k] }
	o, err := ParseFlags([]string{"--org", "acme", "--port", "0"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.Addr != "127.0.0.1:0" || o.Org != "acme" || o.PublicURL != "https://warden.example.com" || o.EnvPath != ".env" ||
		o.GitHubURL != "https://ghe.example.com/" || o.APIURL != "https://ghe.example.com/api/v3/" || o.Force {
		t.Fatalf("%+v", o)
	}
	for _, bad := range [][]string{{"--port", "70000"}, {"extra"}, {"--frob"}} {
		if _, err := ParseFlags(bad, getenv, io.Discard); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseFlags(nil, func(string) string { return "" }, io.Discard); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if _, err := ParseFlags([]string{"--github-url", "ftp://x"}, getenv, io.Discard); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Fatalf("bad GitHub URL: %v", err)
	}
}
