#!/bin/bash
# Simulator benchmark: replays the SWIM FB-2009 day (5,894 jobs, 600 nodes) under each
# scheduler on one core, three times each, and prints the median wall time against the 10 s
# target, events per second and peak memory; then replays growing prefixes of the day to show
# that memory follows the jobs in flight, not the length of the trace.
# usage: perf/bench-replay.sh [BUILD_DIR]   (default: build-release, configured if missing)
# env: SCHEDULERS (default: every scheduler of the ShuffleWatcher paper's evaluation and the
#      capacity scheduler, space-separated); SIZE_SCALE (default 1) multiplies the trace's
#      byte counts; RUNS (default 3);
#      NET_QUANTUM (default 0, the exact network) is swctl's --net-quantum: the opt-in
#      approximation that re-solves the network at multiples of that many seconds;
#      NET_MODEL (default flow, the exact per-flow fetches) is swctl's --net-model: rack, the
#      opt-in approximation that fetches everything another rack holds in one flow.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
trace=${SW_SWIM_TRACE:-../shared/traces/swim/FB-2009_samples_24_times_1hr_0.tsv}
runs=${RUNS:-3}
schedulers=${SCHEDULERS:-fifo fair drf delay capacity sw-fair sw-relaxed sw-drf sw-nass sw-nass-sarp}
size_scale=${SIZE_SCALE:-1}
net_quantum=${NET_QUANTUM:-0}
net_model=${NET_MODEL:-flow}
target_s=10
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
meson compile -C "$build" swctl >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prints "wall_s events peak_mib cpu_s" for one single-core replay of $1 under scheduler $2
# (cpu_s: user seconds, which other work on a shared machine inflates less than wall time).
replay_once() {
	local out start end TIMEFORMAT=%U
	start=$(date +%s.%N)
	{ time "$build/tools/swctl/swctl" replay --mix "$1" --schedulers "$2" --baseline "$2" \
		--size-scale "$size_scale" --net-quantum "$net_quantum" --net-model "$net_model" --jobs 1 --quiet --no-plot \
		--warmup 0 --out "$tmp/out" >"$tmp/log"; } 2>"$tmp/cpu"
	end=$(date +%s.%N)
	out=$(cat "$tmp/log")
	echo "$(calc "$end - $start") $(awk '/ events in /{for (i = 1; i < NF; i++) if ($(i+1) == "events") print $i}' <<<"$out") \
$(awk '/peak resident memory/{print $4}' <<<"$out") $(tail -n 1 "$tmp/cpu")"
}

calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "FB-2009 day replay (sizes x$size_scale, network quantum ${net_quantum} s, $net_model network model), $runs runs per scheduler, single core (target: under ${target_s} s)"
printf '%-10s %10s %12s %10s %12s %14s %12s\n' scheduler "median s" "vs target" "cpu s" \
	"cpu/target" "events/s" "peak MiB"
for sched in $schedulers; do
	: >"$tmp/runs"
	for _ in $(seq $runs); do replay_once "$trace" "$sched" >>"$tmp/runs"; done
	wall=$(cut -d' ' -f1 "$tmp/runs" | median)
	events=$(cut -d' ' -f2 "$tmp/runs" | median)
	mem=$(cut -d' ' -f3 "$tmp/runs" | median)
	cpu=$(cut -d' ' -f4 "$tmp/runs" | median)
	printf '%-10s %10.2f %12.2f %10.2f %12.2f %14.0f %12.1f\n' "$sched" "$wall" \
		"$(calc "$wall / $target_s")" "$cpu" "$(calc "$cpu / $target_s")" \
		"$(calc "$events / $wall")" "$mem"
done

echo
echo "memory against trace length (fair): peak MiB for the first quarter, half and all of the day"
total=$(wc -l <"$trace")
for frac in 4 2 1; do
	head -n $((total / frac)) "$trace" >"$tmp/prefix.tsv"
	printf '  %5d jobs: %s MiB\n' $((total / frac)) "$(replay_once "$tmp/prefix.tsv" fair | cut -d' ' -f3)"
done
