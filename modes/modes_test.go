package modes

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warden-bot/warden/guards"
)

// The defaults are CONTRACT §9's example, except the test command, which
// §12 leaves empty so that it is inferred from the repository.
func TestDefaultsMatchContract(t *testing.T) {
	example := `test: ""
image: ""
security: ""
protected_paths: ["**/*_test.go", "test/**", "tests/**", "testdata/**", ".github/**"]
maintenance: {max_files: 2, max_lines: 150, auto_merge: true}
evolution:   {max_files: 20, max_lines: 1000, allow_test_changes: false}
max_fix_attempts: 3
max_rounds: 3
budget_usd: 1.00
timeouts: {stage: 10m, test: 10m, stall: 2m, heartbeat: 15s}
retry: {plan: standard, implement: standard, test: none, release: aggressive}
circuit_breaker: {limit: 3}
recovery: {implement: resume}
decomposition: {max_depth: 3, max_subtasks: 5, max_tasks_per_tree: 10}
`
	got, err := Parse([]byte(example))
	if err != nil {
		t.Fatal(err)
	}
	def, _ := Parse(nil)
	if !reflect.DeepEqual(got, def) {
		t.Fatalf("example != defaults:\n%+v\n%+v", got, def)
	}
}

func TestParseErrorsNameKeyAndLine(t *testing.T) {
	cases := []struct{ file, key string }{
		{"maintenance:\n  max_files: two\n", "maintenance.max_files"},
		{"maintenence:\n  max_files: 1\n", "maintenence"},
		{"timeouts: {stage: soon}\n", "timeouts.stage"},
		{"retry: {plan: sometimes}\n", "retry.plan"},
		{"maintenance: {max_files: 9}\n", "maintenance.max_files"},
		{"budget_usd: 100\n", "budget_usd"},
		{"max_rounds: 0\n", "max_rounds"},
		{"recovery: {implement: restart}\n", "recovery.implement"},
		{"protected_paths: docs/**\n", "protected_paths"},
		{"evolution: {allow_test_changes: yes please}\n", "evolution.allow_test_changes"},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.file))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line == 0 {
			t.Errorf("%q: got %v, want an error naming %s with a line", tc.file, err, tc.key)
		}
		if err != nil && !strings.Contains(err.Error(), tc.key) {
			t.Errorf("message %q does not name %s", err, tc.key)
		}
	}
}

// protected_paths adds to the defaults: naming docs/** must not let
// maintenance edit tests (issue 17: it replaced the default test globs).
func TestProtectedPathsAreAdditive(t *testing.T) {
	c, err := Parse([]byte("protected_paths: [docs/**]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Policy(Maintenance).Limits.Protected
	for _, g := range append(slices.Clone(Default().ProtectedPaths), "docs/**") {
		if !slices.Contains(got, g) {
			t.Errorf("%s not protected: %v", g, got)
		}
	}
	if guards.CheckPlan([]string{"calc_test.go"}, c.Policy(Maintenance).Limits) == nil {
		t.Error("maintenance may edit calc_test.go with protected_paths: [docs/**]")
	}
}

// unprotect is the one way to remove a default; the always-protected paths stay.
func TestUnprotectRemovesADefaultOnly(t *testing.T) {
	c, err := Parse([]byte("unprotect: [\"testdata/**\"]\nprotected_paths: [docs/**]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Policy(Maintenance).Limits.Protected
	if slices.Contains(got, "testdata/**") || !slices.Contains(got, "**/*_test.go") || !slices.Contains(got, "docs/**") {
		t.Fatalf("protected = %v", got)
	}
	_, err = Parse([]byte("unprotect: [.github/workflows/**]\n"))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "unprotect" || ce.Line != 1 {
		t.Fatalf("unprotecting workflows: err = %v", err)
	}
}

func TestEvolutionMayOpenTestsNeverWorkflows(t *testing.T) {
	c, _ := Parse([]byte("evolution: {allow_test_changes: true}\n"))
	p := c.Policy(Evolution)
	if slices.Contains(p.Limits.Protected, "**/*_test.go") || !slices.Contains(p.Limits.Protected, ".github/workflows/**") || !slices.Contains(p.Limits.Protected, ".github/**") {
		t.Fatalf("protected = %v", p.Limits.Protected)
	}
	if m := c.Policy(Maintenance); !slices.Contains(m.Limits.Protected, "**/*_test.go") || !m.AutoMerge || m.RequireApproval {
		t.Fatalf("maintenance = %+v", m)
	}
	if p.AutoMerge || !p.RequireApproval {
		t.Fatalf("evolution = %+v", p)
	}
}

func TestExplicitRetryAndTimeouts(t *testing.T) {
	c, err := Parse([]byte("retry: {plan: {max_attempts: 4, backoff: linear, initial_delay: 2s, max_delay: 10s}}\ntimeouts: {test: 90s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.RetryFor("Plan"); r.MaxAttempts != 4 || r.Backoff != "linear" || r.InitialDelay != 2*time.Second {
		t.Fatalf("retry = %+v", r)
	}
	if c.Timeouts.Test != 90*time.Second || c.Timeouts.Stage != 10*time.Minute {
		t.Fatalf("timeouts = %+v", c.Timeouts)
	}
	if m, ok := ModeFromLabel("warden", "warden:evolution"); !ok || m != Evolution {
		t.Fatal("ModeFromLabel")
	}
}

// The devcontainer names the image setup runs in (CONTRACT §13): no mode,
// no protected_paths and no unprotect lets Warden change it.
func TestDevcontainerAlwaysProtected(t *testing.T) {
	c, err := Parse([]byte("protected_paths: []\nevolution: {allow_test_changes: true, max_files: 20}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{Maintenance, Evolution} {
		for _, f := range []string{".devcontainer/devcontainer.json", ".devcontainer/Dockerfile", ".devcontainer.json"} {
			if guards.CheckPlan([]string{f}, c.Policy(m).Limits) == nil {
				t.Errorf("%s may edit %s", m, f)
			}
		}
	}
	for _, g := range []string{".devcontainer/**", ".devcontainer.json"} {
		if _, err := Parse([]byte("unprotect: [" + g + "]\n")); err == nil {
			t.Errorf("unprotect: [%s] accepted", g)
		}
	}
}
