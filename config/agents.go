package config

import (
	"strconv"
	"strings"
)

// checkCLIAgent: an agent CLI speaks one wire format, which the real
// endpoint behind the metering proxy must speak too.
func (c *Config) checkCLIAgent() error {
	want := map[string]string{"claude-code": "anthropic", "codex": "openai"}[c.Agent]
	if c.LLMAPI != want {
		return &Error{"WARDEN_LLM_API", "must be " + want + " with WARDEN_AGENT=" + c.Agent + " (the CLI's model endpoint speaks it)"}
	}
	if _, _, err := c.Price(); err != nil {
		return &Error{"WARDEN_LLM_PRICE", err.Error()}
	}
	if c.LLMBaseURL != "" {
		return c.checkURL("WARDEN_LLM_BASE_URL", c.LLMBaseURL)()
	}
	return nil
}

func (c *Config) checkBudgets() error {
	if _, err := parseUSD(c.BudgetRepoDay); err != nil {
		return &Error{"WARDEN_BUDGET_REPO_DAILY_USD", err.Error()}
	}
	if _, err := parseUSD(c.BudgetInstDay); err != nil {
		return &Error{"WARDEN_BUDGET_INSTALLATION_DAILY_USD", err.Error()}
	}
	return nil
}

// DailyCaps are the spend caps per repository and per installation per
// UTC day; 0 is no cap.
func (c *Config) DailyCaps() (repo, installation float64) {
	repo, _ = parseUSD(c.BudgetRepoDay)
	installation, _ = parseUSD(c.BudgetInstDay)
	return repo, installation
}

type usdError string

func (e usdError) Error() string { return string(e) }

func parseUSD(s string) (float64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 || v > 1e6 {
		return 0, usdError("must be an amount of US dollars above 0, e.g. 25")
	}
	return v, nil
}
