#!/bin/sh
# swagent's heartbeat gaps while its disk is busy: the live suite's cluster (swcontroller and 4
# swagents on 127.0.0.2-5, heartbeats every 300 ms) runs a mix whose reduces write and fsync
# 64 MiB outputs and their replicas, while a ballast writer fsyncs 256 MiB files into the same
# file system. The gaps between a node's consecutive heartbeats are read from the
# controller's scheduler-call trace. The map outputs (64 MB per job) stay within the agents'
# stores, which do not spill: what is measured is the output and replica writes. Each run is done twice, once with the swagent under test
# and once with a reference swagent (e.g. one built from an earlier commit), alternating;
# prints per run the largest gap and the 99th percentile, then their medians.
# usage: perf/heartbeat-gaps.sh BUILD_DIR REFERENCE_SWAGENT [RUNS]
set -u
build=$(realpath "$1")
ref=$(realpath "$2")
runs=${3:-3}
live_dir=$(dirname "$(realpath "$0")")/../tests/live
ctl_bin=$build/controller/swcontroller
swctl=$build/tools/swctl/swctl

# gaps TRACE: "MAX P99" of the gaps in ms between a node's consecutive heartbeats, all nodes
gaps() {
	sed -n 's/.*"call":"heartbeat","now":\([0-9.e+-]*\),"node":\([0-9]*\).*/\2 \1/p' "$1" |
		awk '{ if ($1 in last) print ($2 - last[$1]) * 1000; last[$1] = $2 }' | sort -n |
		awk '{ v[NR] = $1 } END { k = int(NR * 0.99); if (k < 1) k = 1; printf "%.0f %.0f\n", v[NR], v[k] }'
}

# one AGENT_BIN: a run of the mix; prints its gaps
one() (
	agent_bin=$1
	lost_after_ms=60000 # nobody is declared lost: the gaps are what is measured
	. "$live_dir/live.sh" >/dev/null
	start_cluster >/dev/null
	(while :; do
		dd if=/dev/zero of="$dir/ballast" bs=1M count=256 conv=fsync 2>/dev/null
	done) &
	pids="$pids $!"
	for i in 1 2; do
		"$swctl" submit --name disk$i --maps 8 --reduces 8 --input-bytes 8000000 \
			--rate 1e9 --reduce-output-bytes 64000000 >/dev/null || exit 1
	done
	jobs_done 2 >/dev/null || exit 1
	gaps "$dir/trace.jsonl"
)

results=$(mktemp /tmp/sw-hb-gaps-XXXXXX)
trap 'rm -f "$results"' EXIT
for i in $(seq "$runs"); do
	for who in test ref; do
		bin=$build/agent/swagent
		[ $who = ref ] && bin=$ref
		g=$(one "$bin") || { echo "run $i ($who) failed"; exit 1; }
		echo "$who $g" >>"$results"
		echo "run $i $who: largest gap $(echo "$g" | cut -d' ' -f1) ms, p99 $(echo "$g" | cut -d' ' -f2) ms (load average $(cut -d' ' -f1 /proc/loadavg))"
	done
done
# median FIELD WHO: the median of a field (2: largest gap, 3: p99) of WHO's runs
median() { awk -v w="$2" -v f="$1" '$1 == w { print $f }' "$results" | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for who in test ref; do
	echo "$who: median largest gap $(median 2 $who) ms, median p99 $(median 3 $who) ms over $runs runs"
done
