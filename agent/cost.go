package agent

import (
	"encoding/json"
	"strings"
)

// CostOf prices a call of model with prices (operator overrides, may be
// nil), then the list prices, then the fallback: the metering proxy prices
// agent CLIs' calls exactly as the llm agent's.
func CostOf(prices map[string]Price, model string, in, out int) float64 {
	return Config{Prices: prices, Model: model}.cost(in, out)
}

// ReportedCost reads what an external agent said it cost: the last JSON
// object line of its output with total_cost_usd (Claude Code's -p JSON) or
// cost_usd. 0 when it said nothing.
func ReportedCost(out string) float64 {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-50; i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var v struct {
			Total *float64 `json:"total_cost_usd"`
			Cost  *float64 `json:"cost_usd"`
		}
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		switch {
		case v.Total != nil && *v.Total > 0:
			return *v.Total
		case v.Cost != nil && *v.Cost > 0:
			return *v.Cost
		}
	}
	return 0
}
