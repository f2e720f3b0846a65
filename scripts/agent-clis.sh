#!/usr/bin/env bash
# Installs the agent CLIs Warden is tested with (WARDEN_AGENT=claude-code and
# codex), at pinned versions, from the npm registry only, OUTSIDE the
# repository: ${WARDEN_AGENT_CLIS:-/var/cache/warden/agent-clis}. Prints the
# bin directory. Idempotent: a matching install is kept.
set -euo pipefail
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.169.0
# The sandbox around a CLI needs bubblewrap, and socat forwards its loopback
# to the metering proxy's socket; both are Debian packages.
for pkg in bwrap:bubblewrap socat:socat; do
	if ! command -v "${pkg%%:*}" >/dev/null; then
		echo "agent-clis: installing ${pkg#*:}" >&2
		apt-get install -y -qq "${pkg#*:}" >&2 || { apt-get update -qq >&2 && apt-get install -y -qq "${pkg#*:}" >&2; }
	fi
done
dir=${WARDEN_AGENT_CLIS:-/var/cache/warden/agent-clis}
mkdir -p "$dir"
have() { [ -f "$dir/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2\"" "$dir/node_modules/$1/package.json"; }
if ! have @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" || ! have @openai/codex "$CODEX_VERSION"; then
	command -v npm >/dev/null || { echo "agent-clis: npm is missing (apt-get install nodejs npm)" >&2; exit 1; }
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" >&2
fi
echo "$dir/node_modules/.bin"
