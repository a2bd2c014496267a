#!/bin/sh
# Where the threads of a fetch and of iperf3 spend their wall-clock time on a shared machine:
# running, waiting for a core (runnable, from /proc/TID/schedstat) or asleep (waiting for the
# peer), sampled over SAMPLE_S seconds in the middle of a long run, for
#   bench_shuffle tput tcp SIZE 1 (the reducer's thread and the map side's) and
#   iperf3 with 1 MiB writes (client and server).
# Shows whether a fetch is short of CPU or waiting on its peer, where the ratio to iperf3 is lost.
# Usage: perf/sched-share.sh path/to/bench_shuffle SIZE  (env: SAMPLE_S=3, PORT=5303)
set -eu
B=$1
SIZE=$2
T=${SAMPLE_S:-3}
PORT=${PORT:-5303}
command -v iperf3 >/dev/null || { echo "sched-share.sh: iperf3 missing" >&2; exit 1; }
[ -x "$B" ] || { echo "sched-share.sh: no $B" >&2; exit 1; }
a=$(mktemp)
b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT

# snap PID...: "tid run-ns wait-ns voluntary involuntary" for every thread of each PID and of
# its children
snap() {
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			echo "$t"
			for c in $(cat "$t"/children 2>/dev/null); do
				echo /proc/"$c"/task/*
			done
		done
	done | tr ' ' '\n' | sort -u | while read -r t; do
		[ -r "$t"/schedstat ] || continue
		read -r run wait _ <"$t"/schedstat
		echo "$(basename "$t") $run $wait $(awk '/^(non)?voluntary_ctxt_switches/ {printf "%s ", $2}' "$t"/status)"
	done
}
# share NAME PID...: samples PIDs over T seconds after 1.5 s, prints each busy thread's shares
share() {
	name=$1
	shift
	sleep 1.5
	snap "$@" >"$a"
	t0=$(date +%s.%N)
	sleep "$T"
	snap "$@" >"$b"
	t1=$(date +%s.%N)
	awk -v n="$name" -v w="$(echo "$t1 - $t0" | bc)" '
		NR == FNR { r[$1] = $2; q[$1] = $3; v[$1] = $4; x[$1] = $5; next }
		($1 in r) && ($2 - r[$1]) / 1e9 > 0.01 * w {
			dr = ($2 - r[$1]) / 1e9; dq = ($3 - q[$1]) / 1e9
			printf "%-14s tid %-7s running %3.0f%%  waiting for a core %3.0f%%  asleep %3.0f%%  switches %d voluntary, %d not\n",
				n, $1, 100 * dr / w, 100 * dq / w, 100 * (w - dr - dq) / w, $4 - v[$1], $5 - x[$1] }' "$a" "$b"
}

"$B" tput tcp "$SIZE" 1 1048576 >/dev/null &
p=$!
share "fetch $SIZE" "$p"
kill "$p"
wait "$p" 2>/dev/null || true
iperf3 -s -1 -B 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
s=$!
sleep 0.3
iperf3 -c 127.0.0.1 -p "$PORT" -l 1048576 -t $((T + 3)) >/dev/null 2>&1 &
c=$!
share iperf3 "$c" "$s"
wait "$c" "$s" || true
