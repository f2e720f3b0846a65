package agent

import "testing"

func TestReportedCost(t *testing.T) {
	cases := map[string]float64{
		"blocks\n{\"type\":\"result\",\"total_cost_usd\":0.42}\n": 0.42,
		"{\"cost_usd\":0.1}\ntrailing text":                       0.1,
		"no json at all":                                          0,
		"{\"total_cost_usd\":0}":                                  0,
	}
	for out, want := range cases {
		if got := ReportedCost(out); got != want {
			t.Errorf("ReportedCost(%q) = %v, want %v", out, got, want)
		}
	}
}
