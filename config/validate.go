package config

import (
	"errors"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/warden-bot/warden/config/redisurl"
)

var labelPrefixRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,29}$`)

// Validate checks the settings a role needs and returns the first bad one as
// an *Error naming the variable. It also resolves the private key into
// PrivateKey when only a path was given.
func (c *Config) Validate(role string) error {
	checks := []func() error{
		func() error {
			if role != "all" && role != "web" && role != "worker" {
				return &Error{"WARDEN_ROLE", "must be all, web or worker"}
			}
			return nil
		},
		c.checkURL("WARDEN_GITHUB_API_URL", c.GitHubAPIURL),
		c.checkURL("WARDEN_GITHUB_URL", c.GitHubURL),
		func() error {
			if role != "worker" && c.WebhookSecret == "" {
				return &Error{"WARDEN_WEBHOOK_SECRET", "is required: serve refuses to accept unsigned webhooks"}
			}
			return nil
		},
		func() error {
			if c.OpsAddr == "" || c.OpsAddr == c.Addr {
				return &Error{"WARDEN_OPS_ADDR", "must be an address other than WARDEN_ADDR, or shared to serve everything on WARDEN_ADDR"}
			}
			return nil
		},
		c.checkRedis,
		c.checkProxies,
		c.checkImageRegistries,
		c.checkMirrors,
		c.checkApp,
		c.checkAgent,
		c.checkBudgets,
		func() error {
			if c.Concurrency < 1 || c.Concurrency > 64 {
				return &Error{"WARDEN_CONCURRENCY", "must be between 1 and 64"}
			}
			if c.MaxPerRepo < 1 {
				return &Error{"WARDEN_MAX_PER_REPO", "must be at least 1"}
			}
			if !labelPrefixRE.MatchString(c.LabelPrefix) {
				return &Error{"WARDEN_LABEL_PREFIX", "must be lower-case letters, digits and dashes"}
			}
			if c.DataDir == "" {
				return &Error{"WARDEN_DATA_DIR", "must not be empty"}
			}
			return nil
		},
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) checkURL(name, raw string) func() error {
	return func() error {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &Error{name, "must be an http(s) URL"}
		}
		return nil
	}
}

func (c *Config) checkRedis() error {
	if c.RedisURL == "" {
		return nil
	}
	if _, err := redisurl.Parse(c.RedisURL); err != nil {
		return &Error{"WARDEN_REDIS_URL", "is not a usable Redis URL: " + err.Error()}
	}
	return nil
}

func (c *Config) checkApp() error {
	if c.PrivateKey == "" && c.PrivateKeyPath != "" {
		b, err := os.ReadFile(c.PrivateKeyPath)
		if err != nil {
			return &Error{"WARDEN_PRIVATE_KEY_PATH", "cannot be read: " + err.Error()}
		}
		c.PrivateKey = string(b)
	}
	hasKey := c.PrivateKey != ""
	switch {
	case c.AppID < 0:
		return &Error{"WARDEN_APP_ID", "must be a positive number"}
	case c.AppID != 0 && !hasKey:
		return &Error{"WARDEN_PRIVATE_KEY_PATH", "is required when WARDEN_APP_ID is set (or WARDEN_PRIVATE_KEY)"}
	case c.AppID == 0 && hasKey:
		return &Error{"WARDEN_APP_ID", "is required when a private key is set"}
	case hasKey && !strings.Contains(c.PrivateKey, "PRIVATE KEY"):
		return &Error{"WARDEN_PRIVATE_KEY", "is not a PEM private key"}
	}
	return nil
}

func (c *Config) checkAgent() error {
	switch c.Agent {
	case "llm":
		if c.LLMAPI != "openai" && c.LLMAPI != "anthropic" {
			return &Error{"WARDEN_LLM_API", "must be openai or anthropic"}
		}
		if _, _, err := c.Price(); err != nil {
			return &Error{"WARDEN_LLM_PRICE", err.Error()}
		}
		if c.LLMMaxTokens < 256 || c.LLMMaxTokens > 200000 {
			return &Error{"WARDEN_LLM_MAX_TOKENS", "must be between 256 and 200000"}
		}
		if c.LLMBaseURL != "" {
			return c.checkURL("WARDEN_LLM_BASE_URL", c.LLMBaseURL)()
		}
	case "claude-code", "codex":
		return c.checkCLIAgent()
	case "exec":
		if strings.TrimSpace(c.AgentCommand) == "" {
			return &Error{"WARDEN_AGENT_COMMAND", "is required when WARDEN_AGENT=exec"}
		}
	default:
		return &Error{"WARDEN_AGENT", "must be llm, claude-code, codex or exec"}
	}
	return nil
}

// Price parses WARDEN_LLM_PRICE: USD per million input and output tokens.
// ok is false when it is unset.
func (c *Config) Price() (in, out float64, err error) {
	if strings.TrimSpace(c.LLMPrice) == "" {
		return 0, 0, nil
	}
	a, b, found := strings.Cut(c.LLMPrice, ",")
	in, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	out, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !found || err1 != nil || err2 != nil || in < 0 || out < 0 || in > 1000 || out > 1000 {
		return 0, 0, errors.New("must be input,output USD per million tokens, e.g. 0.15,0.60")
	}
	return in, out, nil
}

// checkProxies needs every WARDEN_TRUSTED_PROXIES entry to be a CIDR or an
// address: a typo must not silently trust nobody (or everybody).
// checkImageRegistries: each entry a registry host[:port], never a URL or
// a repository, so that naming one can never be read as naming more.
func (c *Config) checkImageRegistries() error {
	for _, h := range strings.Split(c.Registries, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if strings.ContainsAny(h, "/@ \t") || strings.Count(h, ":") > 1 && !strings.HasPrefix(h, "[") {
			return &Error{"WARDEN_IMAGE_REGISTRIES", "must be comma-separated registries as host[:port] (ghcr.io, registry.internal:5000): " + h}
		}
	}
	return nil
}

// checkMirrors: each package mirror an http(s) URL with a host and no
// credentials: repository code runs with these variables, and a password
// in them would be handed to it.
func (c *Config) checkMirrors() error {
	for _, m := range []struct{ name, value string }{
		{"WARDEN_PIP_INDEX_URL", c.PipIndexURL}, {"WARDEN_NPM_REGISTRY", c.NPMRegistry}, {"WARDEN_GOPROXY", c.GoProxy},
	} {
		for _, v := range strings.FieldsFunc(m.value, func(r rune) bool { return r == ',' || r == '|' }) {
			v = strings.TrimSpace(v)
			if m.name == "WARDEN_GOPROXY" && (v == "direct" || v == "off") {
				continue
			}
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return &Error{m.name, "must be an http(s) URL: " + v}
			}
			if u.User != nil {
				return &Error{m.name, "must not hold credentials: repository commands see it"}
			}
		}
	}
	return nil
}

func (c *Config) checkProxies() error {
	for _, f := range strings.Split(c.TrustedProxies, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if _, _, err := net.ParseCIDR(f); err != nil && net.ParseIP(f) == nil {
			return &Error{"WARDEN_TRUSTED_PROXIES", "must be comma-separated CIDRs or addresses: " + f}
		}
	}
	return nil
}
