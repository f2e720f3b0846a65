#!/usr/bin/env bash
# make bench: every benchmark reports a ratio against a baseline measured in
# the same run (see docs/BENCHMARKS.md for the last recorded figures).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exec scripts/with-redis.sh bash -c '
  go test -run "^$" -bench IntakeVsEnqueue -benchtime 2000x ./test/bench/ &&
  go test -run "^$" -bench IntakeAt500 -benchtime 3x ./test/bench/ &&
  go test -run "^$" -bench LabelToPlan -benchtime 60x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench EightPipelines -benchtime 1x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench Overhead5000 -benchtime 5x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench AgentCLIOverhead -benchtime 3x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench BenchmarkPrepareCached -benchtime 5x ./workspace/ &&
  go test -run "^$" -bench EditAccuracy -benchtime 1x ./agent/edit/ &&
  go test -run "^$" -bench StallDetection -benchtime 200x ./supervisor/
'
