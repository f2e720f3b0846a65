#!/usr/bin/env bash
# make soak: SOAK_DURATION (default 30m) of mixed traffic — happy, failing and
# canceled issues, duplicate deliveries, /warden status and resume — against
# one bot process (web and worker) on a redis-server of its own. It prints
# goroutines, open files, worktrees and Redis keys after warm-up and at the
# end, and fails on growth (test/soak). `make test` runs 30 s of the same.
# First it runs SIM_SEEDS (10,000) seeds of the PR interleaving simulation.
set -euo pipefail
cd "$(dirname "$0")/.."
export SOAK_DURATION="${SOAK_DURATION:-30m}"
export WARDEN_TEST_REDIS_PRIVATE=1
# The PR state machine's interleaving simulation (lifecycle/sim_test.go):
# `make test` runs 200 seeds, the soak SIM_SEEDS (default 10,000), in
# parallel chunks (scripts/soak-interleavings.sh).
scripts/soak-interleavings.sh
echo "soak: $SOAK_DURATION of traffic on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec scripts/with-redis.sh go test -count=1 -run '^TestSoak$' -v -timeout 0 ./test/soak/
