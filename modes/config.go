// Package modes is Warden's policy: the two modes (maintenance, evolution) as
// risk tiers, and the repository's `.github/warden.yml` with its defaults,
// strict parsing and hard ceilings. It is pure: no I/O.
package modes

import (
	"time"

	"github.com/warden-bot/warden/guards"
)

// Mode is a risk tier.
type Mode string

// The modes.
const (
	Maintenance Mode = "maintenance"
	Evolution   Mode = "evolution"
)

// ModeFromLabel maps `<prefix>:maintenance` and `<prefix>:evolution` to a mode.
func ModeFromLabel(prefix, label string) (Mode, bool) {
	switch label {
	case prefix + ":maintenance":
		return Maintenance, true
	case prefix + ":evolution":
		return Evolution, true
	}
	return "", false
}

// Config is `.github/warden.yml` (CONTRACT §9). Field tags are the keys.
type Config struct {
	Image          string            `yaml:"image"` // CONTRACT §12: the OCI image repository commands run in (agents run on the worker)
	Test           string            `yaml:"test"`  // empty: inferred from the repository (package toolchain)
	Security       string            `yaml:"security"`
	Setup          string            `yaml:"setup"`   // CONTRACT §11: with network, before any model edit
	Network        Network           `yaml:"network"` // test and security commands may reach the network, through the egress proxy
	ProtectedPaths []string          `yaml:"protected_paths"`
	Unprotect      []string          `yaml:"unprotect"`
	Maintenance    ModeLimits        `yaml:"maintenance"`
	Evolution      ModeLimits        `yaml:"evolution"`
	MaxFixAttempts int               `yaml:"max_fix_attempts"`
	MaxRounds      int               `yaml:"max_rounds"`
	BudgetUSD      float64           `yaml:"budget_usd"`
	Timeouts       Timeouts          `yaml:"timeouts"`
	Retry          map[string]Retry  `yaml:"retry"`
	CircuitBreaker Breaker           `yaml:"circuit_breaker"`
	Recovery       map[string]string `yaml:"recovery"`
	Decomposition  Decomposition     `yaml:"decomposition"`
	MaxDeferrals   int               `yaml:"max_deferrals"`
	ContextTokens  int               `yaml:"context_tokens"` // the planner's repository-context budget
	Followups      Followups         `yaml:"followups"`
	// MergeMethod is squash, merge or rebase; empty: the first of those the
	// repository and its rules allow (CONTRACT §12).
	MergeMethod string `yaml:"merge_method"`
	// Baseline runs the test command on the base commit too, so failures
	// already there and flaky tests are not the change's (default on).
	Baseline bool  `yaml:"baseline"`
	Flaky    Flaky `yaml:"flaky"`
	// Dashboard keeps one issue, "Warden dashboard", listing what Warden
	// does in the repository (package dashboard; CONTRACT §13).
	Dashboard bool `yaml:"dashboard"`
}

// Flaky is what Warden may do about tests it found flaky.
type Flaky struct {
	// Merge lets the maintenance merge go ahead when the PR's own CI failed
	// only on tests an attempt marked flaky (default off: red is red).
	Merge bool `yaml:"merge"`
}

// Followups bounds follow-up attempts (review feedback, CI fixes, conflict
// updates) on one pull request.
type Followups struct {
	Max int `yaml:"max"`
}

// ModeLimits are one mode's limits.
type ModeLimits struct {
	MaxFiles         int  `yaml:"max_files"`
	MaxLines         int  `yaml:"max_lines"`
	AutoMerge        bool `yaml:"auto_merge"`
	AllowTestChanges bool `yaml:"allow_test_changes"`
	// PlanApproval stops each run after Plan until a writer approves the
	// posted plan (`/warden approve`) or steers a new one.
	PlanApproval bool `yaml:"plan_approval"`
}

// Timeouts bound stages, test commands, stalls and heartbeats.
type Timeouts struct {
	Stage     time.Duration `yaml:"stage"`
	Test      time.Duration `yaml:"test"`
	Stall     time.Duration `yaml:"stall"`
	Heartbeat time.Duration `yaml:"heartbeat"`
}

// Retry is a stage's retry policy: a name (none, standard, aggressive,
// patient) or explicit numbers. The supervisor turns it into a policy.
type Retry struct {
	Name         string        `yaml:"-"`
	MaxAttempts  int           `yaml:"max_attempts"`
	Backoff      string        `yaml:"backoff"`
	InitialDelay time.Duration `yaml:"initial_delay"`
	MaxDelay     time.Duration `yaml:"max_delay"`
}

// Breaker is the fingerprint circuit breaker.
type Breaker struct {
	Limit int `yaml:"limit"`
}

// Decomposition bounds how far an issue may be split.
type Decomposition struct {
	MaxDepth        int `yaml:"max_depth"`
	MaxSubtasks     int `yaml:"max_subtasks"`
	MaxTasksPerTree int `yaml:"max_tasks_per_tree"`
}

// AlwaysProtected can never be changed by Warden, in any mode, whatever the file says.
// The devcontainer names the image commands run in (CONTRACT §13): it is
// read from the default branch, and a change to it is a writer's to make.
var AlwaysProtected = []string{".github/**", ".github/workflows/**", ".github/warden.yml", ".github/warden.yaml", ".devcontainer/**", ".devcontainer.json"}

// TestGlobs are the paths evolution's allow_test_changes opens up.
var TestGlobs = []string{"**/*_test.go", "test/**", "tests/**", "testdata/**", "**/testdata/**"}

// Default is the contract's example file, without a test command: an empty
// one is inferred from the repository (CONTRACT §12).
func Default() Config {
	return Config{
		Baseline:       true,
		ProtectedPaths: mergeProtected([]string{"**/*_test.go", "test/**", "tests/**", "testdata/**", ".github/**"}),
		Maintenance:    ModeLimits{MaxFiles: 2, MaxLines: 150, AutoMerge: true},
		Evolution:      ModeLimits{MaxFiles: 20, MaxLines: 1000},
		MaxFixAttempts: 3,
		MaxRounds:      3,
		BudgetUSD:      1.00,
		Timeouts:       Timeouts{Stage: 10 * time.Minute, Test: 10 * time.Minute, Stall: 2 * time.Minute, Heartbeat: 15 * time.Second},
		Retry: map[string]Retry{
			"plan": {Name: "standard"}, "implement": {Name: "standard"}, "test": {Name: "none"}, "release": {Name: "aggressive"},
		},
		CircuitBreaker: Breaker{Limit: 3},
		Recovery:       map[string]string{"implement": "resume"},
		Decomposition:  Decomposition{MaxDepth: 3, MaxSubtasks: 5, MaxTasksPerTree: 10},
		MaxDeferrals:   3,
		ContextTokens:  12000,
		Followups:      Followups{Max: 5},
	}
}

// RetryFor is the retry policy of a stage (by the pipeline's stage name,
// any case); stages without one use "standard".
func (c Config) RetryFor(stage string) Retry {
	if r, ok := c.Retry[lower(stage)]; ok {
		return r
	}
	return Retry{Name: "standard"}
}

// Policy is a mode's view of the configuration.
type Policy struct {
	Mode             Mode
	MaxFiles         int
	MaxLines         int
	AutoMerge        bool
	RequireApproval  bool
	AllowTestChanges bool
	PlanApproval     bool
	Limits           guards.Limits
}

// Policy returns the policy of mode m.
func (c Config) Policy(m Mode) Policy {
	ml := c.Maintenance
	if m == Evolution {
		ml = c.Evolution
	}
	p := Policy{Mode: m, MaxFiles: ml.MaxFiles, MaxLines: ml.MaxLines, AutoMerge: m == Maintenance && ml.AutoMerge,
		RequireApproval: m == Evolution, AllowTestChanges: m == Evolution && ml.AllowTestChanges,
		PlanApproval: ml.PlanApproval}
	protected := append([]string{}, AlwaysProtected...)
	for _, g := range c.ProtectedPaths {
		if p.AllowTestChanges && contains(TestGlobs, g) {
			continue // evolution with allow_test_changes may touch tests, never .github
		}
		protected = append(protected, g)
	}
	p.Limits = guards.Limits{MaxFiles: ml.MaxFiles, MaxLines: ml.MaxLines, Protected: protected}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
