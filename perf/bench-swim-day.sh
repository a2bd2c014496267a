#!/bin/bash
# Simulator benchmark at scale: a synthetic SWIM-format day (perf/swim-synth.sh: 25,000 jobs,
# 16 M maps of 64 MiB drawn from the FB-2009 day) on 3,000 nodes (150 racks x 20, 1 Gbit/s
# NICs, 5:1 uplinks, heartbeats every 30 s: Hadoop 1's max(3 s, nodes / 100 s)), one core,
# release build. For each scheduler: user CPU seconds against the 10 minute target, events,
# events per CPU second and peak memory; then peak memory for growing prefixes of the day
# (memory should follow the jobs in flight, not the length of the trace).
# usage: perf/bench-swim-day.sh [BUILD_DIR]   (default: build-release, configured if missing)
# env: JOBS (default 25000), MAPS (default 16000000) and SEED (1) of the day; SCHEDULERS
#      (default fair); NET_QUANTUM (default 1: the exact network, 0, is out of reach here,
#      see perf/README.md); NET_MODEL (default flow, the per-flow fetches; rack aggregates a
#      reducer's fetches from each other rack, swctl's --net-model); RACK_FETCH_MIN (default
#      0; with NET_MODEL=rack, swctl's --rack-fetch-min: bytes a rack holds for a reducer
#      before it is fetched while maps still run); PREFIXES (default
#      "1000 2500": job counts replayed for the memory figures; empty for none).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
jobs=${JOBS:-25000}
maps=${MAPS:-16000000}
net_quantum=${NET_QUANTUM:-1}
net_model=${NET_MODEL:-flow}
rack_fetch_min=${RACK_FETCH_MIN:-0}
schedulers=${SCHEDULERS:-fair}
target_s=600
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
meson compile -C "$build" swctl >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf/swim-synth.sh "$jobs" "$maps" "${SEED:-1}" >"$tmp/day.tsv" 2>/dev/null
echo '{"racks": 150, "nodes_per_rack": 20, "nic_bps": 1e9, "oversub": 5}' >"$tmp/topology.json"

# Prints "cpu_s events peak_mib" for one replay of $1 under scheduler $2.
replay_once() {
	local TIMEFORMAT=%U
	{ time "$build/tools/swctl/swctl" replay --mix "$1" --topology "$tmp/topology.json" \
		--heartbeat 30 --schedulers "$2" --baseline "$2" --net-quantum "$net_quantum" \
		--net-model "$net_model" --rack-fetch-min "$rack_fetch_min" --jobs 1 --quiet --no-plot --warmup 0 --out "$tmp/out" >"$tmp/log"; } 2>"$tmp/cpu"
	echo "$(tail -n 1 "$tmp/cpu") \
$(awk '/ events in /{for (i = 1; i < NF; i++) if ($(i+1) == "events") print $i}' "$tmp/log") \
$(awk '/peak resident memory/{print $4}' "$tmp/log")"
}

echo "synthetic SWIM day: $jobs jobs, $maps maps, 3,000 nodes, network quantum ${net_quantum} s, $net_model network model (rack fetches from $rack_fetch_min bytes), one run per scheduler (target: under ${target_s} s of CPU)"
printf '%-10s %10s %10s %14s %14s %10s\n' scheduler "cpu s" "vs target" events "events/cpu s" "peak MiB"
for sched in $schedulers; do
	read -r cpu events mem <<<"$(replay_once "$tmp/day.tsv" "$sched")"
	printf '%-10s %10.1f %10.2f %14d %14.0f %10.1f\n' "$sched" "$cpu" \
		"$(awk "BEGIN { print $cpu / $target_s }")" "$events" "$(awk "BEGIN { print $events / $cpu }")" "$mem"
done

prefixes=${PREFIXES-1000 2500}
[ -n "$prefixes" ] || exit 0
echo
echo "peak memory against trace length (first scheduler): jobs, cpu s, peak MiB"
for n in $prefixes; do
	head -n "$n" "$tmp/day.tsv" >"$tmp/prefix.tsv"
	read -r cpu events mem <<<"$(replay_once "$tmp/prefix.tsv" "${schedulers%% *}")"
	printf '  %6d jobs: %8.1f s %8.1f MiB\n' "$n" "$cpu" "$mem"
done
