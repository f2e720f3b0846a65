#!/usr/bin/env bash
# make test: vet, then every test with the race detector against a real Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
# The sandbox tests run bubblewrap for real: install it when missing (as root
# with apt), else stop here naming the package.
if ! command -v bwrap >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    apt-get install -y -q bubblewrap >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }
  fi
  command -v bwrap >/dev/null || { echo "make test needs bubblewrap: install the bubblewrap package (apt-get install bubblewrap)" >&2; exit 1; }
fi
# The agent CLI tests run the pinned claude and codex from npm, installed
# outside the repository (never committed), plus socat for their sandbox.
export WARDEN_AGENT_CLIS=${WARDEN_AGENT_CLIS:-/var/cache/warden/agent-clis}
scripts/agent-clis.sh >/dev/null
exec scripts/with-redis.sh go test -race -count=1 -timeout 20m ./...
