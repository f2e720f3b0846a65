#!/usr/bin/env bash
# make bench: every benchmark reports a ratio against a baseline measured in
# the same run (see docs/BENCHMARKS.md for the last recorded figures).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
scripts/with-redis.sh bash -c '
  go test -run "^$" -bench IntakeVsEnqueue -benchtime 2000x ./test/bench/ &&
  go test -run "^$" -bench IntakeAt500 -benchtime 3x ./test/bench/ &&
  go test -run "^$" -bench LabelToPlan -benchtime 60x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench LabelToFeedback -benchtime 40x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench Fairness -benchtime 1x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench EightPipelines -benchtime 1x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench Pickup -benchtime 40x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench Overhead5000 -benchtime 5x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench FollowupVsFirstAttempt -benchtime 20x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench AgentCLIOverhead -benchtime 3x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench PortUnderAbuse -benchtime 1x -timeout 10m ./test/bench/ &&
  go test -run "^$" -bench BaselineCost -benchtime 5x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench BenchmarkPrepareCached -benchtime 5x ./environment/workspace/ &&
  go test -run "^$" -bench Judging5000 -benchtime 20x ./environment/workspace/ &&
  go test -run "^$" -bench BoundedCommands -benchtime 1x -timeout 30m ./test/bench/ &&
  go test -run "^$" -bench EditAccuracy -benchtime 1x ./agent/edit/ &&
  go test -run "^$" -bench StallDetection -benchtime 200x ./supervisor/
'
# GitHub calls per label → merged PR flow (#30 item 3): the e2e tests count
# every call the fake GitHub answers, by stage; their log lines are the figures.
scripts/with-redis.sh go test -count=1 -v -run 'TestRESTCalls' -timeout 10m ./test/e2e/ 2>&1 |
  grep -E 'calls: label|calls besides|^(--- |ok|FAIL)'
# Calls per commit through the Git Database API, where a rule requires signed
# commits (#39 item 1): blobs, tree, commit, ref, from the e2e test's log line.
scripts/with-redis.sh go test -count=1 -v -run 'TestSignedCommitsGoThroughTheAPI' -timeout 10m ./test/e2e/ 2>&1 |
  grep -E 'calls per commit|^(--- |ok|FAIL)'
# The index on a ~10,000-file repository needs its mirror
# (fetch github:astral-sh/ruff, or WARDEN_BENCH_INDEX_REPO).
go test -run "^$" -bench IndexLarge -benchtime 1x -timeout 30m ./test/bench/index/
# Localization on real issues needs the corpus trees, materialised from local
# mirrors of the repositories (see test/bench/localization/README.md); it runs
# last so that a machine without the mirrors still gets the other figures.
scripts/localization-corpus.sh
go test -run "^$" -bench Localization -benchtime 1x -timeout 30m ./test/bench/localization/
# The index's definition scanner against tree-sitter, on one tree per corpus repository.
go test -run "^$" -bench ScanAgreement -benchtime 1x -timeout 30m ./repocontext/repoindex/
