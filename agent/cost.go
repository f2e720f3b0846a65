package agent

// CostOf prices a call of model with prices (operator overrides, may be
// nil), then the list prices, then the fallback: the metering proxy prices
// agent CLIs' calls exactly as the llm agent's.
func CostOf(prices map[string]Price, model string, in, out int) float64 {
	return Config{Prices: prices, Model: model}.cost(in, out)
}
