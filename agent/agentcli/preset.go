// Package agentcli runs a coding agent CLI (Claude Code, Codex) as Warden's
// agent: in a sandbox with the worktree as the only writable tree and no
// network, talking only to Warden's metering proxy through a Unix socket
// with a dummy key, while Warden reads its event stream for progress.
package agentcli

import (
	"encoding/json"
	"strings"
)

// Preset is how one CLI is driven non-interactively.
type Preset struct {
	Name    string // WARDEN_AGENT value
	Bin     string // executable name on PATH
	Version string // the version Warden is tested with
	API     string // the wire format its model speaks: anthropic or openai
	Model   string // default model
	// args builds the command line for a prompt; env the variables it needs
	// besides HOME and PATH. base is the proxy's URL inside the sandbox.
	args func(o RunOptions) []string
	env  func(o RunOptions, base string) []string
	// step names one event of its stream for the status comment, or "".
	step func(line []byte) string
}

// DummyKey is the only credential an agent CLI ever holds.
const DummyKey = "warden-dummy-key"

// Presets by WARDEN_AGENT value. The versions are pinned in scripts/agent-clis.sh too.
var Presets = map[string]Preset{
	"claude-code": {
		Name: "claude-code", Bin: "claude", Version: "2.1.332", API: "anthropic", Model: "claude-sonnet-4-5",
		args: func(o RunOptions) []string {
			// Print mode, streamed JSON events, a turn limit, and only the
			// tools that read, edit and run commands in the worktree.
			return []string{"-p", o.Prompt, "--output-format", "stream-json", "--verbose",
				"--max-turns", itoa(o.MaxTurns), "--model", o.Model,
				"--tools", "Read,Edit,Write,Glob,Grep,Bash", "--allowedTools", "Read,Edit,Write,Glob,Grep,Bash",
				"--permission-mode", "acceptEdits", "--strict-mcp-config", "--no-session-persistence"}
		},
		env: func(o RunOptions, base string) []string {
			return []string{"ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=" + DummyKey,
				"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1"}
		},
		step: claudeStep,
	},
	"codex": {
		Name: "codex", Bin: "codex", Version: "0.169.0", API: "openai", Model: "gpt-4.1",
		args: func(o RunOptions) []string {
			// Codex's own sandbox is off: Warden's sandbox holds it, and
			// approvals are never asked in exec mode.
			return []string{"exec", "--json", "--skip-git-repo-check", "--ephemeral", "--ignore-user-config",
				"--dangerously-bypass-approvals-and-sandbox", "-C", o.Tree.Dir,
				"-c", "model_provider=warden",
				"-c", `model_providers.warden={name="warden",base_url="` + o.base + `",env_key="WARDEN_MODEL_KEY",wire_api="responses"}`,
				"-c", "analytics.enabled=false", "-c", "check_for_update_on_startup=false",
				"-m", o.Model, o.Prompt}
		},
		env: func(o RunOptions, _ string) []string {
			return []string{"WARDEN_MODEL_KEY=" + DummyKey, "CODEX_HOME=" + o.Home + "/.codex"}
		},
		step: codexStep,
	},
}

// claudeStep names a tool call of Claude Code's stream-json output.
func claudeStep(line []byte) string {
	var ev struct {
		Type    string `json:"type"`
		Message struct {
			Content []struct {
				Type  string         `json:"type"`
				Name  string         `json:"name"`
				Input map[string]any `json:"input"`
			} `json:"content"`
		} `json:"message"`
		Subtype string `json:"subtype"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return ""
	}
	if ev.Type == "result" {
		return "finished (" + ev.Subtype + ")"
	}
	for _, c := range ev.Message.Content {
		if c.Type == "tool_use" {
			return c.Name + " " + describe(c.Input, "file_path", "command", "pattern", "path")
		}
	}
	return ""
}

// codexStep names a started item of Codex's --json output.
func codexStep(line []byte) string {
	var ev struct {
		Type string `json:"type"`
		Item struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Changes []struct {
				Path string `json:"path"`
			} `json:"changes"`
		} `json:"item"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return ""
	}
	switch {
	case ev.Type == "item.started" && ev.Item.Type == "command_execution":
		return "run " + ev.Item.Command
	case ev.Type == "item.completed" && ev.Item.Type == "file_change" && len(ev.Item.Changes) > 0:
		return "edit " + ev.Item.Changes[0].Path
	case ev.Type == "turn.completed" || ev.Type == "turn.failed":
		return strings.TrimPrefix(ev.Type, "turn.")
	}
	return ""
}

func describe(in map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := in[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
