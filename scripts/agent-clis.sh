#!/usr/bin/env bash
# Installs the agent CLIs Warden is tested with (WARDEN_AGENT=claude-code and
# codex), at pinned versions, from the npm registry only, OUTSIDE the
# repository: ${WARDEN_AGENT_CLIS:-/var/cache/warden/agent-clis}. Prints the
# bin directory. Idempotent: a matching install is kept.
#
# The versions and every package's integrity hash come from the committed
# lockfile scripts/agent-clis/package-lock.json (regenerate with
# `npm install --package-lock-only --ignore-scripts` there); `npm ci` refuses
# a tarball whose hash differs. Install scripts are off, except Claude Code's
# own (it places its platform binary), run alone by `npm rebuild`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CLAUDE_CODE_VERSION=$(sed -n 's/.*"@anthropic-ai\/claude-code": "\(.*\)".*/\1/p' "$here/agent-clis/package.json")
CODEX_VERSION=$(sed -n 's/.*"@openai\/codex": "\(.*\)".*/\1/p' "$here/agent-clis/package.json")
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
	cp "$here/agent-clis/package.json" "$here/agent-clis/package-lock.json" "$dir/"
	npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
	npm rebuild --prefix "$dir" --foreground-scripts @anthropic-ai/claude-code >&2
fi
echo "$dir/node_modules/.bin"
