#!/bin/sh
# Before/after comparison of two bench_shuffle builds on the tcp targets, interleaved run by
# run so that both see the same load on a shared machine; medians of RUNS:
#   fetch over BACKEND, 1 stream, 1 MiB and 16 MiB partitions, each build / iperf3 (1 MiB writes)
#   a plain TCP stream through buffers of the same sizes (AFTER's bench_shuffle stream) / iperf3:
#   what the fetches' memory costs without the protocol
#   64 KiB fetch latency median, each build / a plain TCP request/response (bench_shuffle rr)
# Usage: perf/bench-shuffle-ab.sh BEFORE AFTER  (env: RUNS=3, MIB=256 per run; AFTER needs rr and
# stream; BACKEND=tcp, or ucx with UCX_TLS from the environment: the fetches' backend, same
# references)
set -eu
A=$1
B=$2
RUNS=${RUNS:-3}
MIB=${MIB:-256}
PORT=${PORT:-5302}
BACKEND=${BACKEND:-tcp}
command -v iperf3 >/dev/null || { echo "bench-shuffle-ab.sh: iperf3 missing" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
iperf() {
	iperf3 -s -1 -B 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
	sleep 0.3
	iperf3 -c 127.0.0.1 -p "$PORT" -l 1048576 -n "${MIB}M" -f g 2>/dev/null |
		awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i+1) == "Gbits/sec") print $i}'
	wait
}
for _ in $(seq "$RUNS"); do
	echo "iperf $(iperf)" >>"$out"
	for s in 1048576 16777216; do
		echo "before-$s $("$A" tput "$BACKEND" "$s" 1 "$MIB" | awk '{print $1}')" >>"$out"
		echo "after-$s $("$B" tput "$BACKEND" "$s" 1 "$MIB" | awk '{print $1}')" >>"$out"
		echo "stream-$s $("$B" stream "$s" "$MIB" | awk '{print $1}')" >>"$out"
	done
	echo "before-lat $("$A" lat "$BACKEND" 65536 2000 | awk '{print $1}')" >>"$out"
	echo "after-lat $("$B" lat "$BACKEND" 65536 2000 | awk '{print $1}')" >>"$out"
	echo "plain-rr $("$B" rr 65536 2000 | awk '{print $1}')" >>"$out"
done
med() { awk -v k="$1" '$1 == k {print $2}' "$out" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ip=$(med iperf)
rr=$(med plain-rr)
printf '# %s%s, medians of %s interleaved runs, %s MiB per run\n' "$BACKEND" \
	"${UCX_TLS:+ (UCX_TLS=$UCX_TLS)}" "$RUNS" "$MIB"
printf '%-22s %9s %9s %7s %7s\n' what before after b/ref a/ref
for s in 1048576 16777216; do
	awk -v s="$s" -v b="$(med before-$s)" -v a="$(med after-$s)" -v i="$ip" 'BEGIN {
		printf "%-22s %9.2f %9.2f %7.2f %7.2f\n", "fetch " s " Gbit/s", b, a, b / i, a / i }'
done
for s in 1048576 16777216; do
	awk -v s="$s" -v p="$(med stream-$s)" -v i="$ip" 'BEGIN {
		printf "%-22s %9s %9.2f %7s %7.2f\n", "stream " s " Gbit/s", "", p, "", p / i }'
done
awk -v i="$ip" 'BEGIN { printf "%-22s %9.2f\n", "iperf3 Gbit/s", i }'
awk -v b="$(med before-lat)" -v a="$(med after-lat)" -v r="$rr" 'BEGIN {
	printf "%-22s %9.1f %9.1f %7.2f %7.2f\n", "64 KiB fetch p50 us", b, a, b / r, a / r
	printf "%-22s %9.1f\n", "plain TCP rr p50 us", r }'
