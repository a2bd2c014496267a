#!/bin/sh
# Transport-level throughput over loopback, each figure the median of RUNS runs, all in one
# run of this script so the ratios compare like with like on a shared machine:
#   tcp backend        / iperf3 (one stream, same write size; iperf3 caps writes at 1 MiB)
#   ucx over shm       / memcpy bandwidth of one thread (the local limit for a copy)
#   ucx over shm, ucx_trust_peers (no peer-failure handling, so UCX uses cma) / memcpy
#   ucx over tcp       / iperf3
#   1 MiB send() with MSG_ZEROCOPY / without (bench_dp_zerocopy, next to bench_dp)
#   dpdk backend over memif / a raw memif sender and receiver (frames of the same MTU,
#   payload copied, no reliability: the packet-I/O limit) and / the tcp backend, beside ucx
#   over shm, each also in Gbit/s per core busy; when built with DPDK
# Usage: perf/bench-dp.sh [path/to/bench_dp]   (env: RUNS=3, MIB=2048 per run, SIZES=...,
#        DPDK_ONLY=1 for the dpdk table alone, MTU=9000 of dpdk and raw memif frames: the
#        backend's default on memif)
set -eu
BENCH=${1:-build/perf/bench_dp}
RUNS=${RUNS:-3}
MIB=${MIB:-2048}
SIZES=${SIZES:-"65536 1048576 16777216"}
PORT=${PORT:-5299}
MTU=${MTU:-9000}
command -v iperf3 >/dev/null || { echo "bench-dp.sh: iperf3 missing (tools/setup-deps.sh)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "bench-dp.sh: no $BENCH (meson compile first)" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# RUNS lines of "GBITS CORES" (bench_dp's output); med FIELD picks the median of one column.
runs() { i=0; while [ $i -lt "$RUNS" ]; do "$@"; i=$((i+1)); done; }
med() { awk -v f="$1" '{print $f}' | median; }
repeat() { runs "$@" | median; }

iperf() {
	iperf3 -s -1 -B 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	# -n: the same bytes as bench_dp moves; the receiver's figure, in Gbit/s.
	iperf3 -c 127.0.0.1 -p "$PORT" -l "$1" -n "${MIB}M" -f g 2>/dev/null |
		awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i+1) == "Gbits/sec") print $i}'
	wait $srv 2>/dev/null || true
}
ucx_shm() { UCX_TLS=sm,tcp UCX_NET_DEVICES=lo "$BENCH" ucx "$1" "$MIB"; }
ucx_trusted() { UCX_TLS=sm,tcp UCX_NET_DEVICES=lo "$BENCH" ucx-trusted "$1" "$MIB"; }
ucx_tcp() { UCX_TLS=tcp UCX_NET_DEVICES=lo "$BENCH" ucx "$1" "$MIB"; }

printf '# medians of %s runs, %s MiB per run, Gbit/s of payload\n' "$RUNS" "$MIB"
if [ -z "${DPDK_ONLY:-}" ]; then
printf '%-9s %8s %8s %7s | %8s %8s %7s | %8s %7s | %8s %7s\n' size tcp iperf3 ratio \
	ucx-shm memcpy ratio trusted ratio ucx-tcp ratio
for s in $SIZES; do
	w=$s
	[ "$w" -gt 1048576 ] && w=1048576
	tcp=$(repeat "$BENCH" tcp "$s" "$MIB")
	ip=$(repeat iperf "$w")
	shm=$(repeat ucx_shm "$s")
	mc=$(repeat "$BENCH" memcpy "$s" "$MIB")
	tr=$(repeat ucx_trusted "$s")
	ut=$(repeat ucx_tcp "$s")
	awk -v s="$s" -v t="$tcp" -v i="$ip" -v u="$shm" -v m="$mc" -v r="$tr" -v x="$ut" 'BEGIN {
		printf "%-9s %8.1f %8.1f %7.2f | %8.1f %8.1f %7.2f | %8.1f %7.2f | %8.1f %7.2f\n",
			s, t, i, t / i, u, m, u / m, r, r / m, x, x / i }'
done
fi

# dpdk over memif against the raw memif limit (frames of the same MTU, payload copied in and
# out, no reliability; bench_dp answers "memif-raw" only when built with DPDK), the tcp backend and
# ucx over shared memory. Two raw references: "raw" copies out of and into 1 MiB buffers (in
# the caches: the first reference, kept), "raw@s" out of and into buffers of the message's
# size, as the backend does (perf/README.md, "The raw reference at 16 MiB"). Each: Gbit/s and
# Gbit/s per core busy (sender + receiver CPU over the timed window: dpdk and raw memif poll,
# so they count whole cores while they wait); for dpdk also the segments sent again (retx)
# and those received twice (dups), per run.
if "$BENCH" memif-raw "$MTU" 16 >/dev/null 2>&1; then
	export SW_DP_DPDK_MTU="$MTU"
	raw=$(runs "$BENCH" memif-raw "$MTU" "$MIB")
	printf '# dpdk and raw memif: IP MTU %s\n' "$MTU"
	printf '%-9s | %6s %6s %6s %6s | %6s %6s | %6s %6s | %6s %6s | %6s %6s | %8s %9s %8s\n' \
		size dpdk /core retx dups raw /core raw@s /core tcp /core ucx /core dpdk/raw \
		dpdk/raw@s dpdk/tcp
	for s in $SIZES; do
		dp=$(runs "$BENCH" dpdk "$s" "$MIB")
		rs=$(runs "$BENCH" memif-raw "$MTU" "$MIB" "$s")
		tcp=$(runs "$BENCH" tcp "$s" "$MIB")
		ucx=$(runs ucx_shm "$s")
		awk -v s="$s" -v d="$(echo "$dp" | med 1)" -v dc="$(echo "$dp" | med 2)" \
			-v rx="$(echo "$dp" | med 3)" -v du="$(echo "$dp" | med 4)" \
			-v r="$(echo "$raw" | med 1)" -v rc="$(echo "$raw" | med 2)" \
			-v q="$(echo "$rs" | med 1)" -v qc="$(echo "$rs" | med 2)" \
			-v t="$(echo "$tcp" | med 1)" -v tc="$(echo "$tcp" | med 2)" \
			-v u="$(echo "$ucx" | med 1)" -v uc="$(echo "$ucx" | med 2)" 'BEGIN {
			printf "%-9s | %6.1f %6.1f %6d %6d | %6.1f %6.1f | %6.1f %6.1f | %6.1f %6.1f | %6.1f %6.1f | %8.2f %9.2f %8.2f\n",
				s, d, d / dc, rx, du, r, r / rc, q, q / qc, t, t / tc, u, u / uc, d / r, d / q, d / t }'
	done
fi

zc=$(dirname "$BENCH")/bench_dp_zerocopy
if [ -x "$zc" ]; then
	on=$(repeat sh -c "'$zc' 1048576 1 | cut -d' ' -f1")
	off=$(repeat sh -c "'$zc' 1048576 0 | cut -d' ' -f1")
	awk -v a="$on" -v b="$off" 'BEGIN { printf "MSG_ZEROCOPY 1 MiB sends: %.1f vs %.1f Gbit/s without, ratio %.2f\n", a, b, a / b }'
	"$zc" 1048576 1 | sed 's/^/  one zerocopy run: /'
fi
