#!/bin/sh
# CPU per byte of a tcp fetch against iperf3's, both ends together: a system-wide
# `perf record -a` of 2 GiB fetched (`bench_shuffle tput tcp SIZE 1 2048`) and of 2 GiB sent by
# iperf3 with 1 MiB writes, in pairs. On loopback the receive side's protocol work runs on
# whichever core holds the socket at the time, so the split between the two threads moves from
# run to run; the sum over both cores does not. Per run and program, in samples at F Hz:
#   Gbit/s, busy (any task), idle (both cores halted), nh (the reducer's UMAC), irq (the
#   loopback's protocol work charged where interrupts come back on), copy-to (the receive
#   copy), copy-from (the send copy); then the median of the pairs' busy ratios.
# Usage: perf/cpu-per-byte.sh path/to/bench_shuffle  (env: SIZES="1048576 16777216", RUNS=3,
#        F=4000, PORT=5304; needs perf (Debian: linux-perf) and root for -a)
set -eu
B=$1
SIZES=${SIZES:-1048576 16777216}
RUNS=${RUNS:-3}
F=${F:-4000}
PORT=${PORT:-5304}
command -v perf >/dev/null || { echo "cpu-per-byte.sh: perf missing (apt install linux-perf)" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "cpu-per-byte.sh: iperf3 missing" >&2; exit 1; }
[ -x "$B" ] || { echo "cpu-per-byte.sh: no $B" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# costs DATA: "busy idle nh irq copy-to copy-from" summed over the samples of DATA
costs() {
	perf report -i "$1" --no-children --sort comm,sym -n 2>/dev/null | grep -E '^ +[0-9]' |
		awk '{n = $2; if ($3 == "swapper") idle += n; else busy += n}
		$NF == "nh_avx2" || $NF == "sw_shuffle_umac64" {nh += n}
		$NF == "_raw_spin_unlock_irqrestore" || $NF == "handle_softirqs" {irq += n}
		$NF == "_copy_to_iter" {to += n} $NF == "_copy_from_iter" {from += n}
		END {printf "%d %d %d %d %d %d\n", busy, idle, nh, irq, to, from}'
}

# row SIZE PROG GBIT BUSY IDLE NH IRQ COPY-TO COPY-FROM: one line of the table
row() { printf '%-9s %-6s %7s %6s %6s %5s %5s %7s %9s\n' "$@"; }

row size prog Gbit/s busy idle nh irq copy-to copy-from
for s in $SIZES; do
	for _ in $(seq "$RUNS"); do
		g=$(perf record -a -F "$F" -o "$d/f" -- "$B" tput tcp "$s" 1 2048 2>/dev/null | awk '{print $1}')
		# shellcheck disable=SC2046 # six numbers, split on purpose
		set -- $(costs "$d/f")
		row "$s" fetch "$g" "$@"
		fb=$1
		iperf3 -s -1 -B 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
		sleep 0.3
		g=$(perf record -a -F "$F" -o "$d/i" -- iperf3 -c 127.0.0.1 -p "$PORT" -l 1M -n 2048M -f g 2>/dev/null |
			awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i+1) == "Gbits/sec") print $i}')
		wait
		# shellcheck disable=SC2046
		set -- $(costs "$d/i")
		row "$s" iperf3 "$g" "$@"
		echo "$s $fb $1" >>"$d/pairs"
	done
	awk -v s="$s" '$1 == s {print $2 / $3}' "$d/pairs" | sort -g |
		awk -v s="$s" '{v[NR] = $1} END {printf "# %s: fetch busy / iperf3 busy, median of %d pairs: %.2f\n", s, NR, v[int((NR + 1) / 2)]}'
done
