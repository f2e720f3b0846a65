package main

import (
	"bytes"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestServeWithoutSecretExits2NamingIt(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"serve"}, envOf(nil), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WARDEN_WEBHOOK_SECRET") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestBadSettingExits2(t *testing.T) {
	var stderr bytes.Buffer
	code := run([]string{"serve", "--concurrency", "0"}, envOf(map[string]string{"WARDEN_WEBHOOK_SECRET": "s"}), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WARDEN_CONCURRENCY") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"frobnicate"}, envOf(nil), &bytes.Buffer{}, &bytes.Buffer{}); code != 2 {
		t.Fatalf("unknown command exit %d", code)
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"version"}, envOf(nil), &out, &bytes.Buffer{}); code != 0 || !strings.Contains(out.String(), "warden dev") || !strings.Contains(out.String(), "go1.") {
		t.Fatalf("exit %d: %q", code, out.String())
	}
}
