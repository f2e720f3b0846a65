// Package config loads Warden's process configuration from the environment
// and flags (CONTRACT §2). Every setting is a field of Config with its
// variable, flag, default and help in struct tags, so the README's table is
// generated from the same source the loader reads.
package config

import (
	"time"
)

// Config is the process configuration. Secret fields are tagged secret:"true"
// and never printed.
type Config struct {
	Role           string `env:"WARDEN_ROLE" flag:"role" default:"all" help:"all (webhooks and worker in one process), web or worker"`
	Addr           string `env:"WARDEN_ADDR" flag:"addr" default:":8080" help:"listen address of /webhooks, /healthz and /readyz"`
	OpsAddr        string `env:"WARDEN_OPS_ADDR" flag:"ops-addr" default:"127.0.0.1:9090" help:"listen address of /metrics, /ui and /api/...; shared serves them on WARDEN_ADDR too"`
	WebhookSecret  string `env:"WARDEN_WEBHOOK_SECRET" flag:"webhook-secret" secret:"true" help:"HMAC secret; serve refuses to start without it"`
	AppID          int64  `env:"WARDEN_APP_ID" flag:"app-id" help:"GitHub App id"`
	PrivateKeyPath string `env:"WARDEN_PRIVATE_KEY_PATH" flag:"private-key-path" help:"the App's PEM key, as a path"`
	PrivateKey     string `env:"WARDEN_PRIVATE_KEY" flag:"private-key" secret:"true" help:"the App's PEM key, inline"`
	GitHubAPIURL   string `env:"WARDEN_GITHUB_API_URL" flag:"github-api-url" default:"https://api.github.com/" help:"REST base URL (GitHub Enterprise Server, or a test server)"`
	GitHubURL      string `env:"WARDEN_GITHUB_URL" flag:"github-url" default:"https://github.com/" help:"web URL of GitHub: clones and pushes go to <url><owner>/<name>.git, whatever a payload says (and bot setup on Enterprise Server)"`
	RedisURL       string `env:"WARDEN_REDIS_URL" flag:"redis-url" help:"redis://, rediss://, redis-sentinel://host:port,host:port?master=NAME or redis-cluster://host:port,host:port URL; empty = an embedded in-process Redis (non-persistent, one process only, on loopback with a password made at start that only this process knows)"`
	DataDir        string `env:"WARDEN_DATA_DIR" flag:"data-dir" default:"./data" help:"mirror cache and worktrees"`
	Concurrency    int    `env:"WARDEN_CONCURRENCY" flag:"concurrency" default:"2" help:"pipelines run at once by one worker"`
	MaxPerRepo     int    `env:"WARDEN_MAX_PER_REPO" flag:"max-per-repo" default:"2" help:"pipelines of one repository run at once across all workers; others wait while other repositories' issues go first"`
	LabelPrefix    string `env:"WARDEN_LABEL_PREFIX" flag:"label-prefix" default:"warden" help:"prefix of every label and slash command"`
	Agent          string `env:"WARDEN_AGENT" flag:"agent" default:"llm" help:"llm (a chat-completions model), claude-code or codex (that CLI in a sandbox, metered), or exec (an external agent command)"`
	LLMAPI         string `env:"WARDEN_LLM_API" flag:"llm-api" default:"openai" help:"openai (any OpenAI-compatible /chat/completions) or anthropic"`
	LLMBaseURL     string `env:"WARDEN_LLM_BASE_URL" flag:"llm-base-url" help:"model endpoint base URL (provider default when empty)"`
	LLMAPIKey      string `env:"WARDEN_LLM_API_KEY" flag:"llm-api-key" secret:"true" help:"model API key"`
	LLMModel       string `env:"WARDEN_LLM_MODEL" flag:"llm-model" help:"model name (provider default when empty)"`
	LLMPrice       string `env:"WARDEN_LLM_PRICE" flag:"llm-price" help:"USD per million input and output tokens of the model, as input,output (e.g. 0.15,0.60); built-in list prices, else 3,15, when empty"`
	LLMMaxTokens   int    `env:"WARDEN_LLM_MAX_TOKENS" flag:"llm-max-tokens" default:"8192" help:"longest reply one model call may produce"`
	AgentCommand   string `env:"WARDEN_AGENT_COMMAND" flag:"agent-command" help:"with WARDEN_AGENT=exec: the command line to run"`
	DefaultImage   string `env:"WARDEN_DEFAULT_IMAGE" flag:"default-image" help:"OCI image (e.g. ghcr.io/org/toolchains:1) repository commands (setup, test, security) run in when a repository names none in .github/warden.yml or .devcontainer/devcontainer.json; unset: the worker's own /usr"`
	Registries     string `env:"WARDEN_IMAGE_REGISTRIES" flag:"image-registries" help:"comma-separated registries (host[:port]) images may come from; only these when set; the only way to a registry at a private or loopback address; registry credentials (Docker config) are used only for registries named here; unset: any registry at a public address, anonymously"`
	AgentBin       string `env:"WARDEN_AGENT_BIN" flag:"agent-bin" help:"with WARDEN_AGENT=claude-code or codex: path of the claude or codex executable (its name on PATH when empty)"`
	BudgetRepoDay  string `env:"WARDEN_BUDGET_REPO_DAILY_USD" flag:"budget-repo-daily-usd" help:"model spend cap per repository per UTC day, in USD (no cap when empty)"`
	BudgetInstDay  string `env:"WARDEN_BUDGET_INSTALLATION_DAILY_USD" flag:"budget-installation-daily-usd" help:"model spend cap per installation per UTC day, in USD (no cap when empty)"`
	EgressAllow    string `env:"WARDEN_EGRESS_ALLOW" flag:"egress-allow" help:"comma-separated host globs (pkgs.example.org, *.example.net) every sandbox with network may reach, on top of a repository's network.allow; any public address when both are empty"`
	PipIndexURL    string `env:"WARDEN_PIP_INDEX_URL" flag:"pip-index-url" help:"a package mirror (PEP 503 simple index, http(s) URL without credentials) setup and test commands receive as PIP_INDEX_URL and UV_DEFAULT_INDEX; its host:port is reachable through the egress proxy, at any address; unset: the tools' own index"`
	NPMRegistry    string `env:"WARDEN_NPM_REGISTRY" flag:"npm-registry" help:"an npm registry mirror (http(s) URL without credentials) setup and test commands receive as npm_config_registry, YARN_NPM_REGISTRY_SERVER and BUN_CONFIG_REGISTRY; its host:port is reachable through the egress proxy, at any address"`
	GoProxy        string `env:"WARDEN_GOPROXY" flag:"goproxy" help:"a Go module proxy list (http(s) URLs without credentials, separated by , or |; direct and off allowed) setup and test commands receive as GOPROXY (tests stay offline: GOPROXY=off); its hosts are reachable through the egress proxy, at any address"`
	UIPassword     string `env:"WARDEN_UI_PASSWORD" flag:"ui-password" secret:"true" help:"basic-auth password for the operator routes (/ui, /api/...); they are off when unset"`
	TrustedProxies string `env:"WARDEN_TRUSTED_PROXIES" flag:"trusted-proxies" help:"comma-separated CIDRs of reverse proxies whose X-Forwarded-For names the client in logs; unset: the connection's address"`

	LogLevel        string        `env:"WARDEN_LOG_LEVEL" flag:"log-level" default:"info" help:"debug, info, warn or error"`
	ShutdownTimeout time.Duration `env:"WARDEN_SHUTDOWN_TIMEOUT" flag:"shutdown-timeout" default:"30s" help:"how long running tasks may take to finish on SIGTERM before they are requeued"`
	CIGrace         time.Duration `env:"WARDEN_CI_GRACE" flag:"ci-grace" default:"2m" help:"how long after Warden opens or updates a maintenance PR it looks again for CI; with none by then, the status comment says the PR waits for a human"`
	DeliveryTTL     time.Duration `env:"WARDEN_DELIVERY_TTL" flag:"delivery-ttl" default:"168h" help:"how long a webhook delivery id is remembered for deduplication"`
}

// Secrets returns the values of every secret setting that is set, so that
// redaction can scrub them from anything posted or logged.
func (c *Config) Secrets() []string {
	var out []string
	for _, f := range fields(c) {
		if f.secret {
			if s := f.value.String(); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// EmbeddedRedis reports whether Warden should run its own in-process Redis.
func (c *Config) EmbeddedRedis() bool { return c.RedisURL == "" }

// HasApp reports whether GitHub App credentials are configured.
func (c *Config) HasApp() bool { return c.AppID != 0 }
