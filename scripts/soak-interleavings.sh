#!/usr/bin/env bash
# make soak-interleavings: SIM_SEEDS (10,000) seeds of the PR interleaving
# test (lifecycle TestInterleavings), in chunks of SIM_CHUNK (250) seeds run
# by SIM_JOBS (nproc) niced workers, each on a redis-server of its own. The
# test binary is built once. A chunk stops at its first broken invariant;
# the soak records that seed, with its failure, and goes on from the next
# one, so one run reports every break. A line per chunk as it ends (seeds,
# time, load), a summary at the end; it fails when any seed broke.
# SIM_ARGS are more flags for the test binary (-sim.old=forcepush shows a
# break).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${SIM_SEEDS:-10000}" chunk="${SIM_CHUNK:-250}" jobs="${SIM_JOBS:-$(nproc)}" from="${SIM_FROM:-1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/sim.test" ./lifecycle
mkdir "$work/claims" "$work/breaks"
echo "soak-interleavings: $seeds seeds from $from, chunks of $chunk, $jobs workers on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)

# run_chunk runs seeds [a, b) and goes on past each broken seed.
run_chunk() {
	local a=$1 b=$2 t0 out seed tries=0
	t0=$(date +%s)
	while ((a < b)); do
		out="$work/out.$a"
		if (cd lifecycle && WARDEN_TEST_REDIS_PRIVATE=1 nice ../scripts/with-redis.sh "$work/sim.test" \
			-test.run 'TestInterleavings$' -test.count=1 -test.timeout=0 -sim.from="$a" -sim.seeds=$((b - a)) ${SIM_ARGS:-}) >"$out" 2>&1; then
			break
		fi
		seed=$(sed -n 's/.*caught at seed \([0-9]*\) .*/\1/p' "$out" | head -1)
		if [[ -z "$seed" && $((tries++)) -eq 0 ]]; then
			continue # not a broken invariant (a redis-server port taken): once more
		fi
		if [[ -z "$seed" ]]; then
			echo "soak-interleavings: seeds $a-$((b - 1)) did not run:" >&2
			tail -20 "$out" >&2
			touch "$work/breaks/error.$a"
			return
		fi
		{
			grep -m1 "caught at seed" "$out" | sed 's/^ *sim_test.go:[0-9]*: //'
			echo "  replay: go test ./lifecycle -run 'TestInterleavings\$' -count=1 -sim.seed=$seed -v"
		} | tee "$work/breaks/$seed"
		a=$((seed + 1))
	done
	echo "soak-interleavings: seeds $1-$((b - 1)) done in $(($(date +%s) - t0)) s, load $(cut -d' ' -f1 /proc/loadavg)"
}

# worker claims chunks (mkdir is atomic) until none is left.
worker() {
	local a=$from end=$((from + seeds)) b
	while ((a < end)); do
		if mkdir "$work/claims/$a" 2>/dev/null; then
			b=$((a + chunk < end ? a + chunk : end))
			run_chunk "$a" "$b"
		fi
		a=$((a + chunk))
	done
}

for _ in $(seq "$jobs"); do worker & done
wait
broke=$(find "$work/breaks" -type f | wc -l)
echo "soak-interleavings: $seeds seeds in $(($(date +%s) - start)) s on $(nproc) cores ($jobs workers), load $(cut -d' ' -f1-3 /proc/loadavg); $broke broken"
((broke == 0))
