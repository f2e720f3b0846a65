package config

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaultsEnvAndFlags(t *testing.T) {
	c, rest, err := Load([]string{"--concurrency", "5", "extra"}, env(map[string]string{
		"WARDEN_ADDR": "127.0.0.1:9", "WARDEN_CONCURRENCY": "3", "WARDEN_SHUTDOWN_TIMEOUT": "5s",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9" || c.Concurrency != 5 || c.LabelPrefix != "warden" || c.ShutdownTimeout != 5*time.Second {
		t.Fatalf("got %+v", c)
	}
	if c.GitHubAPIURL != "https://api.github.com/" || c.DataDir != "./data" || c.Agent != "llm" {
		t.Fatalf("defaults not applied: %+v", c)
	}
	if len(rest) != 1 || rest[0] != "extra" {
		t.Fatalf("rest = %v", rest)
	}
}

func TestValidateNamesTheBadSetting(t *testing.T) {
	cases := []struct {
		env     map[string]string
		role    string
		setting string
	}{
		{map[string]string{}, "all", "WARDEN_WEBHOOK_SECRET"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_CONCURRENCY": "0"}, "all", "WARDEN_CONCURRENCY"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_ADDR": "127.0.0.1:9000", "WARDEN_OPS_ADDR": "127.0.0.1:9000"}, "all", "WARDEN_OPS_ADDR"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_REDIS_URL": "mysql://x"}, "all", "WARDEN_REDIS_URL"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_APP_ID": "12"}, "all", "WARDEN_PRIVATE_KEY_PATH"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_PRIVATE_KEY_PATH": "/nonexistent.pem", "WARDEN_APP_ID": "1"}, "all", "WARDEN_PRIVATE_KEY_PATH"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_AGENT": "exec"}, "all", "WARDEN_AGENT_COMMAND"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_LLM_API": "cohere"}, "all", "WARDEN_LLM_API"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_LABEL_PREFIX": "Bad Prefix"}, "all", "WARDEN_LABEL_PREFIX"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_GITHUB_API_URL": "ftp://x"}, "all", "WARDEN_GITHUB_API_URL"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s"}, "both", "WARDEN_ROLE"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_LLM_PRICE": "0.15"}, "all", "WARDEN_LLM_PRICE"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_LLM_PRICE": "-1,2"}, "all", "WARDEN_LLM_PRICE"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_LLM_MAX_TOKENS": "10"}, "all", "WARDEN_LLM_MAX_TOKENS"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_PIP_INDEX_URL": "https://user:pw@pypi.internal/simple/"}, "all", "WARDEN_PIP_INDEX_URL"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_NPM_REGISTRY": "npm.internal"}, "all", "WARDEN_NPM_REGISTRY"},
		{map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_GOPROXY": "https://goproxy.internal,file:///srv/mods"}, "all", "WARDEN_GOPROXY"},
	}
	for _, tc := range cases {
		c, _, err := Load(nil, env(tc.env), io.Discard)
		if err == nil {
			err = c.Validate(tc.role)
		}
		var ce *Error
		if !errors.As(err, &ce) || ce.Setting != tc.setting {
			t.Errorf("env %v: got %v, want an error naming %s", tc.env, err, tc.setting)
		}
	}
}

// Mirrors in the forms the tools take are accepted.
func TestMirrorsAccepted(t *testing.T) {
	c, _, err := Load(nil, env(map[string]string{"WARDEN_WEBHOOK_SECRET": "s", "WARDEN_PIP_INDEX_URL": "http://127.0.0.2:8081/simple/",
		"WARDEN_NPM_REGISTRY": "https://npm.internal/", "WARDEN_GOPROXY": "https://goproxy.internal|direct"}), io.Discard)
	if err == nil {
		err = c.Validate("all")
	}
	if err != nil || c.GoProxy != "https://goproxy.internal|direct" {
		t.Fatalf("err %v, GoProxy %q", err, c.GoProxy)
	}
}

func TestWorkerNeedsNoWebhookSecret(t *testing.T) {
	c, _, _ := Load(nil, env(nil), io.Discard)
	if err := c.Validate("worker"); err != nil {
		t.Fatal(err)
	}
}

func TestBadNumberNamesVariable(t *testing.T) {
	_, _, err := Load(nil, env(map[string]string{"WARDEN_CONCURRENCY": "two"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "WARDEN_CONCURRENCY") {
		t.Fatalf("got %v", err)
	}
}

func TestSecretsListsOnlySecrets(t *testing.T) {
	c, _, _ := Load(nil, env(map[string]string{"WARDEN_WEBHOOK_SECRET": "whsec-123456", "WARDEN_LLM_API_KEY": "sk-abc", "WARDEN_ADDR": ":1"}), io.Discard)
	got := strings.Join(c.Secrets(), ",")
	if got != "whsec-123456,sk-abc" {
		t.Fatalf("secrets = %q", got)
	}
}

// The README's configuration table is generated from the struct: keep it in sync.
func TestREADMETableInSync(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "<!-- config:begin -->\n")
	end := strings.Index(s, "<!-- config:end -->")
	if start < 0 || end < start {
		t.Fatal("README.md lacks the config:begin/config:end markers")
	}
	if got := s[start+len("<!-- config:begin -->\n") : end]; got != MarkdownTable() {
		t.Fatalf("README configuration table is stale; regenerate it from config.MarkdownTable():\n%s", MarkdownTable())
	}
}

func TestPriceParses(t *testing.T) {
	c := &Config{LLMPrice: " 0.15 , 0.60 "}
	if in, out, err := c.Price(); err != nil || in != 0.15 || out != 0.60 {
		t.Fatalf("got %v %v %v", in, out, err)
	}
	if in, out, err := (&Config{}).Price(); err != nil || in != 0 || out != 0 {
		t.Fatalf("unset: %v %v %v", in, out, err)
	}
}
