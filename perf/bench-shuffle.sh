#!/bin/sh
# Shuffle fetches over loopback, each figure the median of RUNS runs, all in one run of this
# script so that the ratios compare like with like on a shared machine:
#   tcp fetches (1 and 2 streams)       / iperf3, one stream, same write size (<= 1 MiB)
#   ucx over shared memory, one-sided   / memcpy of one thread (the local limit for a copy)
#   64 KiB fetch latency, median and p99, per backend, and of a plain TCP request/response
#   GB moved per CPU-second (client + server, getrusage), per backend
#   dpdk over memif between the two processes (where the build has it), plain and, as root,
#   zero-copy (hugepages reserved here and given back; dataplane/README.md, "Zero-copy
#   memif"): fetches / the tcp fetches, 64 KiB latency / tcp's
# The tcp fetches and their references run as interleaved pairs (iperf3 then the fetches, the
# plain request/response then the 64 KiB fetch, RUNS times): "ratio" is the ratio of the
# medians, "pair" the median of the RUNS pairs' own ratios, each taken seconds apart
# (perf/README.md, "Paired ratios").
# Usage: perf/bench-shuffle.sh [path/to/bench_shuffle]  (env: RUNS=3, MIB=1024 per run)
set -eu
B=${1:-build/perf/bench_shuffle}
RUNS=${RUNS:-3}
MIB=${MIB:-1024}
PORT=${PORT:-5301}
command -v iperf3 >/dev/null || { echo "bench-shuffle.sh: iperf3 missing (tools/setup-deps.sh)" >&2; exit 1; }
[ -x "$B" ] || { echo "bench-shuffle.sh: no $B (meson compile first)" >&2; exit 1; }
export UCX_NET_DEVICES=lo

# med COL CMD...: runs CMD RUNS times and prints the median of output column COL
med() {
	col=$1
	shift
	for _ in $(seq "$RUNS"); do "$@" | awk -v c="$col" '{print $c}'; done |
		sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
iperf() {
	iperf3 -s -1 -B 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
	sleep 0.3
	iperf3 -c 127.0.0.1 -p "$PORT" -l "$1" -n "${MIB}M" -f g 2>/dev/null |
		awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i+1) == "Gbits/sec") print $i}'
	wait
}
shm() { UCX_TLS=sm,tcp "$B" "$@"; }

sock=${TMPDIR:-/tmp}/swdp-bs-$$
zc=
# The EAL's chatter (memif says on every probe that an in-memory EAL has no multi-process
# channel) goes to $elog, shown only if the script fails.
elog=$(mktemp)
dpdk() {
	SW_DP_DPDK_PORT=net_memif0,role=client,socket=$sock$zc \
		SW_BENCH_MAP_DPDK_PORT=net_memif0,role=server,socket=$sock "$B" "$@" 2>>"$elog"
}
has_dpdk=
dpdk lat dpdk 1024 10 >/dev/null 2>&1 && has_dpdk=1
hugepages=
pairs=$(mktemp)
trap 'st=$?; [ "$st" -eq 0 ] || cat "$elog" >&2; rm -f "$pairs" "$elog"
	[ -z "$hugepages" ] || echo "$hugepages" >/proc/sys/vm/nr_hugepages' EXIT
# mkey KEY: the median of the values recorded under KEY in $pairs
mkey() {
	awk -v k="$1" '$1 == k {print $2}' "$pairs" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
# ratio NUM DEN: the median of the per-run ratios NUM / DEN, paired by run number
ratio() {
	awk -v n="$1" -v d="$2" '$1 == n {a[$3] = $2} $1 == d {b[$3] = $2}
		END {for (r in a) if (r in b && b[r] > 0) print a[r] / b[r]}' "$pairs" |
		sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

printf '# shuffle fetch over loopback: medians of %s runs, %s MiB per run, Gbit/s of payload\n' \
	"$RUNS" "$MIB"
printf '%-9s %2s | %7s %7s %6s %6s %7s | %8s %8s %7s %6s %7s\n' size st tcp iperf3 ratio pair \
	GB/cpu-s ucx-shm ucx-get memcpy ratio GB/cpu-s
for s in 65536 1048576 16777216; do
	w=$s
	[ "$w" -gt 1048576 ] && w=1048576
	for r in $(seq "$RUNS"); do
		echo "ip-$s $(iperf "$w") $r" >>"$pairs"
		for st in 1 2; do
			"$B" tput tcp "$s" "$st" "$MIB" | awk -v k="$s-$st" -v r="$r" \
				'{print "t-" k, $1, r; print "tc-" k, $2, r}' >>"$pairs"
		done
	done
	ip=$(mkey "ip-$s")
	mc=$(med 1 "$B" memcpy "$s" "$MIB")
	for st in 1 2; do
		t=$(mkey "t-$s-$st")
		tc=$(mkey "tc-$s-$st")
		pr=$(ratio "t-$s-$st" "ip-$s")
		u=$(med 1 shm tput ucx "$s" "$st" "$MIB")
		g=$(med 1 shm tput ucx "$s" "$st" "$MIB" get)
		gc=$(med 2 shm tput ucx "$s" "$st" "$MIB" get)
		awk -v s="$s" -v st="$st" -v t="$t" -v i="$ip" -v pr="$pr" -v tc="$tc" -v u="$u" \
			-v g="$g" -v m="$mc" -v gc="$gc" 'BEGIN {
			printf "%-9s %2s | %7.2f %7.2f %6.2f %6.2f %7.2f | %8.2f %8.2f %7.1f %6.3f %7.2f\n",
				s, st, t, i, t / i, pr, tc, u, g, m, g / m, gc }'
	done
done
printf '# 64 KiB fetch latency, microseconds (medians over %s runs of 2000 fetches)\n' "$RUNS"
printf '%-12s %8s %8s\n' backend median p99
for r in $(seq "$RUNS"); do
	"$B" rr 65536 2000 | awk -v r="$r" '{print "rr", $1, r; print "rr99", $2, r}' >>"$pairs"
	"$B" lat tcp 65536 2000 | awk -v r="$r" '{print "lat", $1, r; print "lat99", $2, r}' >>"$pairs"
done
printf '%-12s %8s %8s\n' plain-tcp "$(mkey rr)" "$(mkey rr99)"
printf '%-12s %8s %8s\n' tcp "$(mkey lat)" "$(mkey lat99)"
for b in "ucx-shm" "ucx-shm-get"; do
	case $b in
	ucx-shm) set -- shm lat ucx 65536 2000 ;;
	ucx-shm-get) set -- shm lat ucx 65536 2000 get ;;
	esac
	printf '%-12s %8s %8s\n' "$b" "$(med 1 "$@")" "$(med 2 "$@")"
done
awk -v l="$(mkey lat)" -v p="$(mkey rr)" -v pr="$(ratio lat rr)" 'BEGIN {
	printf "tcp / plain-tcp median: %.2fx (ratio of medians), %.2fx (median of the pairs)\n", l / p, pr }'
[ -n "$has_dpdk" ] || exit 0

# As root, a zero-copy memif link too: its EAL memory on hugepages, reserved here and given
# back (dataplane/README.md, "Zero-copy memif"); zc= is plain memif, zc=,zero-copy=yes that.
links=plain
zc_eal="--no-pci --in-memory --single-file-segments --socket-mem 256 --socket-limit 256"
zc_eal="$zc_eal --no-telemetry --log-level=lib.eal:error"
nr=/proc/sys/vm/nr_hugepages
if [ -w "$nr" ]; then
	hugepages=$(cat "$nr")
	echo $((hugepages + 288)) >"$nr"
	links="plain zero-copy"
fi
# on LINK CMD...: CMD over dpdk on that memif link
on() {
	case $1 in
	plain) zc= ;;
	zero-copy) zc=,zero-copy=yes ;;
	esac
	shift
	if [ -n "$zc" ]; then
		SW_DP_DPDK_EAL=$zc_eal dpdk "$@"
	else
		dpdk "$@"
	fi
}
printf '# dpdk over memif: fetches, medians of %s runs, Gbit/s; over the tcp fetches above\n' "$RUNS"
printf '%-9s %2s %-9s | %7s %8s %8s\n' size st link dpdk GB/cpu-s dpdk/tcp
for s in 65536 1048576 16777216; do
	for st in 1 2; do
		for l in $links; do
			for r in $(seq "$RUNS"); do
				on "$l" tput dpdk "$s" "$st" "$MIB" | awk -v k="$l-$s-$st" -v r="$r" \
					'{print "d-" k, $1, r; print "dc-" k, $2, r}' >>"$pairs"
			done
			awk -v s="$s" -v st="$st" -v l="$l" -v d="$(mkey "d-$l-$s-$st")" \
				-v dc="$(mkey "dc-$l-$s-$st")" -v t="$(mkey "t-$s-$st")" 'BEGIN {
				printf "%-9s %2s %-9s | %7.2f %8.2f %8.2f\n", s, st, l, d, dc, d / t }'
		done
	done
done
printf '# 64 KiB fetch latency over dpdk, microseconds (medians over %s runs of 2000 fetches)\n' "$RUNS"
printf '%-12s %8s %8s %8s\n' link median p99 /tcp
for l in $links; do
	for r in $(seq "$RUNS"); do
		on "$l" lat dpdk 65536 2000 | awk -v k="$l" -v r="$r" '{print k, $1, r; print k "99", $2, r}' >>"$pairs"
	done
	awk -v n="$l" -v a="$(mkey "$l")" -v z="$(mkey "${l}99")" -v t="$(mkey lat)" 'BEGIN {
		printf "%-12s %8s %8s %8.2f\n", n, a, z, a / t }'
done
