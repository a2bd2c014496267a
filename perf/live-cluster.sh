#!/bin/sh
# The live replay on emulated racks against the simulator: a 4 x 2 cluster of network
# namespaces (1 Gbit/s node links, uplinks OVERSUB:1) runs perf/mixes/live-4x2.jsonl live
# RUNS times under Fair, SW-fair, Delay and SW-relaxed, and once in the simulator on the same
# topology with the live task model (--map-input live --output-replicas 1); prints each run's
# cross-rack bytes (NetSat, the agents' counters) of SW-fair against Fair and SW-relaxed
# against Delay, their median and spread, and writes OUT/oversub-O/{live-N,sim}/ and
# compare-N.txt (swctl compare sim live-N).
# usage (root): perf/live-cluster.sh [BUILD_DIR [OUT [RUNS [OVERSUB...]]]]
set -eu
build=${1:-build}
out=${2:-perf/results/live-4x2}
runs=${3:-3}
shift $(($# < 3 ? $# : 3))
oversubs=${*:-10}
swctl=$(realpath "$build/tools/swctl/swctl")
mix=$(dirname "$0")/mixes/live-4x2.jsonl
name=pl$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
dir=$(mktemp -d /tmp/sw-live-perf-XXXXXX)
trap '"$swctl" cluster down --name "$name" --dir "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
opts="--mix $mix --warmup 0 --schedulers fair,sw-fair,delay,sw-relaxed --no-plot --quiet"
for o in $oversubs; do
	d=$out/oversub-$o
	rm -rf "$d"
	mkdir -p "$d"
	"$swctl" cluster up --racks 4 --nodes-per-rack 2 --nic 1gbit \
		--uplink $((2000 / o))mbit --name "$name" --dir "$dir/c" >"$d/cluster.txt"
	"$swctl" replay --topology "$dir/c/topology.json" --heartbeat 0.5 --map-input live \
		--output-replicas 1 $opts --out "$d/sim" \
		>"$d/sim.txt"
	for i in $(seq "$runs"); do
		"$swctl" replay --live "$dir/c" $opts --out "$d/live-$i" >"$d/live-$i.txt" 2>/dev/null
	done
	"$swctl" cluster down --dir "$dir/c" >/dev/null
	for i in $(seq "$runs"); do
		"$swctl" compare "$d/sim" "$d/live-$i" >"$d/compare-$i.txt"
	done
	echo "== $o:1 uplinks ($((2000 / o)) Mbit/s), $runs live runs: cross-rack bytes (NetSat) against the baseline"
	for pair in sw-fair:fair sw-relaxed:delay; do
		for i in $(seq "$runs"); do
			awk -F, -v s="${pair%:*}" -v b="${pair#*:}" \
				'$1 == s {x = $4} $1 == b {y = $4} END {printf "%.3f\n", x / y}' \
				"$d/live-$i/live.csv"
		done | sort -n | awk -v p="$pair" '{v[NR] = $1} END {
			printf "%-18s median %.3f  min %.3f  max %.3f  runs", p, v[int((NR + 1) / 2)], v[1], v[NR]
			for (i = 1; i <= NR; i++) printf " %.3f", v[i]; printf "\n"}'
		# results.csv: class in column 2, xrack_total_bytes in 13
		awk -F, -v s="${pair%:*}" -v b="${pair#*:}" '$2 == "all" && $1 == s {x = $13}
			$2 == "all" && $1 == b {y = $13}
			END {printf "%-18s simulated %.3f\n", "", x / y}' "$d/sim/results.csv"
	done
done
