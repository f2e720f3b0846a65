#!/usr/bin/env bash
# make test: the tools the tests need (installed when missing, see
# scripts/test-deps.sh), vet, then every test with the race detector against a real Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
# The agent CLI tests run the pinned claude and codex from npm, installed
# outside the repository (never committed) by scripts/agent-clis.sh.
export WARDEN_AGENT_CLIS=${WARDEN_AGENT_CLIS:-/var/cache/warden/agent-clis}
scripts/test-deps.sh
go vet ./...
scripts/with-redis.sh go test -race -count=1 -timeout 35m ./...
# Tests that can fail: each planted bug must be caught (test/mutants).
# make redteam-mutants also runs test/mutants/redteam-e2e.txt, whose tests
# each build the bot with the bug in it: too long for every CI run.
scripts/with-redis.sh go run ./test/mutants -timeout 5m test/mutants/redteam.txt
# #38's planted bugs, most caught by the interleaving test (about 4 min on 2 cores).
WARDEN_TEST_REDIS_PRIVATE=1 exec scripts/with-redis.sh go run ./test/mutants -timeout 5m test/mutants/effects.txt
