// Package mirrors holds the operator's package mirrors (WARDEN_PIP_INDEX_URL,
// WARDEN_NPM_REGISTRY, WARDEN_GOPROXY): the standard variables repository
// commands receive for them, the hosts the egress proxy lets through, and
// which mirror a command line would use.
package mirrors

import (
	"net"
	"net/url"
	"strings"
)

// Mirrors are the operator's settings; an empty one is not set.
type Mirrors struct {
	PipIndex    string // WARDEN_PIP_INDEX_URL: a PEP 503 simple index
	NPMRegistry string // WARDEN_NPM_REGISTRY
	GoProxy     string // WARDEN_GOPROXY: a GOPROXY list of URLs
}

// Mirror is one setting as a command sees it.
type Mirror struct {
	Setting string   // the operator's variable
	URL     string   // its value
	Names   []string // the tools' standard variables it sets
	Vars    []string // as NAME=URL; none when unset
	tools   []string // words of a command line that use it
}

// All lists the settings that are set, in a fixed order.
func (m Mirrors) All() []Mirror { return m.all(false) }

func (m Mirrors) all(unset bool) []Mirror {
	var out []Mirror
	add := func(setting, u string, tools []string, vars ...string) {
		if u == "" && !unset {
			return
		}
		mr := Mirror{Setting: setting, URL: u, Names: vars, tools: tools}
		for _, v := range vars {
			if u != "" {
				mr.Vars = append(mr.Vars, v+"="+u)
			}
		}
		out = append(out, mr)
	}
	// uv reads UV_DEFAULT_INDEX, pip PIP_INDEX_URL; npm, pnpm and yarn 1
	// npm_config_registry, yarn 2+ YARN_NPM_REGISTRY_SERVER, bun
	// BUN_CONFIG_REGISTRY.
	add(PipSetting, m.PipIndex, []string{"pip", "pip3", "uv", "poetry", "tox", "pipenv"}, "PIP_INDEX_URL", "UV_DEFAULT_INDEX")
	add(NPMSetting, m.NPMRegistry, []string{"npm", "npx", "pnpm", "yarn", "bun"}, "npm_config_registry", "YARN_NPM_REGISTRY_SERVER", "BUN_CONFIG_REGISTRY")
	add(GoSetting, m.GoProxy, []string{"go"}, "GOPROXY")
	return out
}

// The operator's variables.
const (
	PipSetting = "WARDEN_PIP_INDEX_URL"
	NPMSetting = "WARDEN_NPM_REGISTRY"
	GoSetting  = "WARDEN_GOPROXY"
)

// Vars are the standard variables of every mirror set, for setup and tests.
func (m Mirrors) Vars() []string {
	var out []string
	for _, mr := range m.All() {
		out = append(out, mr.Vars...)
	}
	return out
}

// Hosts are the mirrors' host:port, which the egress proxy lets through.
func (m Mirrors) Hosts() []string {
	var out []string
	for _, mr := range m.All() {
		for _, u := range strings.FieldsFunc(mr.URL, func(r rune) bool { return r == ',' || r == '|' }) {
			if h := HostPort(u); h != "" {
				out = append(out, h)
			}
		}
	}
	return out
}

// HostPort is a mirror URL's host:port, the scheme's port when none is
// written; "" when it is not an http(s) URL.
func HostPort(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	default:
		return ""
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// For is the mirrors set that a command line would use: those whose tool
// it names.
func (m Mirrors) For(line string) []Mirror { return m.uses(line, false) }

// Uses is every setting a command line's tools read, set or not (URL and
// Vars empty when unset: the tool's own index).
func (m Mirrors) Uses(line string) []Mirror { return m.uses(line, true) }

func (m Mirrors) uses(line string, unset bool) []Mirror {
	words := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t\n;&|(){}'\"", r) })
	var out []Mirror
	for _, mr := range m.all(unset) {
		if usesAny(words, mr.tools) {
			out = append(out, mr)
		}
	}
	return out
}

func usesAny(words, tools []string) bool {
	for _, w := range words {
		w = w[strings.LastIndex(w, "/")+1:] // ./node_modules/.bin/x, /usr/bin/python3
		for _, t := range tools {
			if w == t {
				return true
			}
		}
	}
	return false
}

// SettingFor is the operator's setting for the package index a command
// line downloads from, set or not; "" when it names no tool Warden knows.
func SettingFor(line string) string {
	if f := (Mirrors{}).Uses(line); len(f) > 0 {
		return f[0].Setting
	}
	return ""
}
