package modes

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Hard ceilings: a repository may tighten Warden, never loosen it past these.
const (
	CeilMaintenanceFiles = 5
	CeilMaintenanceLines = 500
	CeilEvolutionFiles   = 100
	CeilEvolutionLines   = 5000
	CeilBudgetUSD        = 50
	CeilFixAttempts      = 10
	CeilRounds           = 5
	CeilTimeout          = time.Hour
	CeilDepth            = 3
	CeilSubtasks         = 5
	CeilTreeTasks        = 10
	CeilDeferrals        = 10
	CeilContextTokens    = 200000
	CeilBreaker          = 10
	CeilFollowups        = 20
)

type bound struct {
	key      string
	val, max float64
}

func bounds(c Config, root *yaml.Node) error {
	checks := []bound{
		{"maintenance.max_files", float64(c.Maintenance.MaxFiles), CeilMaintenanceFiles},
		{"maintenance.max_lines", float64(c.Maintenance.MaxLines), CeilMaintenanceLines},
		{"evolution.max_files", float64(c.Evolution.MaxFiles), CeilEvolutionFiles},
		{"evolution.max_lines", float64(c.Evolution.MaxLines), CeilEvolutionLines},
		{"budget_usd", c.BudgetUSD, CeilBudgetUSD},
		{"max_fix_attempts", float64(c.MaxFixAttempts), CeilFixAttempts},
		{"max_rounds", float64(c.MaxRounds), CeilRounds},
		{"timeouts.stage", c.Timeouts.Stage.Seconds(), CeilTimeout.Seconds()},
		{"timeouts.test", c.Timeouts.Test.Seconds(), CeilTimeout.Seconds()},
		{"timeouts.stall", c.Timeouts.Stall.Seconds(), CeilTimeout.Seconds()},
		{"timeouts.heartbeat", c.Timeouts.Heartbeat.Seconds(), CeilTimeout.Seconds()},
		{"decomposition.max_depth", float64(c.Decomposition.MaxDepth), CeilDepth},
		{"decomposition.max_subtasks", float64(c.Decomposition.MaxSubtasks), CeilSubtasks},
		{"decomposition.max_tasks_per_tree", float64(c.Decomposition.MaxTasksPerTree), CeilTreeTasks},
		{"max_deferrals", float64(c.MaxDeferrals), CeilDeferrals},
		{"context_tokens", float64(c.ContextTokens), CeilContextTokens},
		{"circuit_breaker.limit", float64(c.CircuitBreaker.Limit), CeilBreaker},
		{"followups.max", float64(c.Followups.Max), CeilFollowups},
	}
	for _, b := range checks {
		zeroOK := b.key == "max_fix_attempts" || b.key == "max_deferrals"
		switch {
		case b.val < 0 || (b.val == 0 && !zeroOK):
			return &ConfigError{Key: b.key, Line: lineOf(root, b.key), Msg: "must be greater than zero"}
		case b.val > b.max:
			return &ConfigError{Key: b.key, Line: lineOf(root, b.key), Msg: fmt.Sprintf("must be at most %v (Warden's ceiling)", b.max)}
		}
	}
	for stage, r := range c.Retry {
		if r.Name == "" && (r.MaxAttempts < 1 || r.MaxAttempts > 10 || (r.Backoff != "exponential" && r.Backoff != "linear" && r.Backoff != "constant")) {
			return &ConfigError{Key: "retry." + stage, Line: lineOf(root, "retry."+stage), Msg: "needs max_attempts 1..10 and backoff exponential, linear or constant"}
		}
	}
	for stage, r := range c.Recovery {
		if r != "clean" && r != "resume" {
			return &ConfigError{Key: "recovery." + stage, Line: lineOf(root, "recovery."+stage), Msg: "must be clean or resume"}
		}
	}
	return nil
}

// lineOf finds the line of a dotted key in the document, or 0.
func lineOf(n *yaml.Node, key string) int {
	for _, part := range strings.Split(key, ".") {
		found := false
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				n, found = n.Content[i+1], true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return n.Line
}
