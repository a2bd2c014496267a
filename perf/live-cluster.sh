#!/bin/sh
# The live replay on emulated racks against the simulator: a RACKS x NODES cluster of network
# namespaces (1 Gbit/s node links, uplinks OVERSUB:1) runs each MIX live RUNS times under
# Fair, SW-fair, Delay and SW-relaxed, and once in the simulator on the same topology with the
# live task model (--map-input live --output-replicas 1); prints each run's cross-rack bytes
# (NetSat, the agents' counters) of SW-fair against Fair and SW-relaxed against Delay, their
# median and spread, and the load average while it ran; writes OUT/MIXNAME/oversub-O/
# {live-N,sim}/ (tables, uplink CSVs and plots) and compare-N.txt (swctl compare sim live-N).
# usage (root): perf/live-cluster.sh [--racks R] [--nodes N] [--runs K] [--oversub O]...
#                                    [--mix FILE]... [--out DIR] [BUILD_DIR]
# defaults: 4 x 2, 3 runs, 10:1, mixes/live-4x2.jsonl, perf/results/live-4x2, build
set -eu
racks=4 nodes=2 runs=3 oversubs='' mixes='' out=perf/results/live-4x2
while [ $# -gt 1 ]; do
	case $1 in
	--racks) racks=$2 ;;
	--nodes) nodes=$2 ;;
	--runs) runs=$2 ;;
	--oversub) oversubs="$oversubs $2" ;;
	--mix) mixes="$mixes $(realpath "$2")" ;;
	--out) out=$2 ;;
	*) echo "live-cluster.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift 2
done
build=${1:-build}
oversubs=${oversubs:-10}
mixes=${mixes:-$(realpath "$(dirname "$0")/mixes/live-4x2.jsonl")}
swctl=$(realpath "$build/tools/swctl/swctl")
name=pl$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
dir=$(mktemp -d /tmp/sw-live-perf-XXXXXX)
trap '"$swctl" cluster down --name "$name" --dir "$dir/c" >/dev/null 2>&1; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
scheds=fair,sw-fair,delay,sw-relaxed
for o in $oversubs; do
	uplink=$((1000 * nodes / o))
	"$swctl" cluster up --racks "$racks" --nodes-per-rack "$nodes" --nic 1gbit \
		--uplink "${uplink}mbit" --name "$name" --dir "$dir/c" >"$dir/cluster.txt"
	for mix in $mixes; do
		d=$out/$(basename "$mix" .jsonl)/oversub-$o
		rm -rf "$d"
		mkdir -p "$d"
		cp "$dir/cluster.txt" "$d/"
		opts="--mix $mix --warmup 0 --schedulers $scheds --quiet"
		"$swctl" replay --topology "$dir/c/topology.json" --heartbeat 0.5 --map-input live \
			--output-replicas 1 $opts --out "$d/sim" >"$d/sim.txt"
		for i in $(seq "$runs"); do
			uptime >>"$d/load.txt"
			"$swctl" replay --live "$dir/c" $opts --out "$d/live-$i" >"$d/live-$i.txt" \
				2>"$d/live-$i.err"
			uptime >>"$d/load.txt"
			"$swctl" compare "$d/sim" "$d/live-$i" >"$d/compare-$i.txt"
		done
		echo "== $(basename "$mix" .jsonl), $racks x $nodes, $o:1 uplinks ($uplink Mbit/s), $runs live runs: cross-rack bytes (NetSat) against the baseline"
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
		awk '{sub(/.*load average: /, ""); sub(/,.*/, ""); print}' "$d/load.txt" | sort -n |
			awk '{v[NR] = $1} END {printf "load average (1 min) at run starts and ends: %s-%s, median %s\n", v[1], v[NR], v[int((NR + 1) / 2)]}'
	done
	"$swctl" cluster down --dir "$dir/c" >/dev/null
done
