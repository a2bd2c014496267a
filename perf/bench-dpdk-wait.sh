#!/bin/sh
# What waiting costs the dpdk backend (dataplane/README.md, "Waiting"), against tcp measured in
# the same run: CPU of idle agents (a 1 x 2 swctl cluster up for 10 s doing nothing, % of a
# core per agent) and shuffle fetch latency (bench_shuffle lat, median and p99 in us, of 1 KiB
# and 64 KiB fetches: a frame each way, then the 46 frames of 64 KiB through the port; dpdk on
# af_packet on the loopback of a namespace made here). Medians of RUNS runs. Root.
# Usage: perf/bench-dpdk-wait.sh [BUILD_DIR]   (env RUNS=3, SIZES="1024 65536")
set -u
B=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-1024 65536}
sw=$B/tools/swctl/swctl bs=$B/perf/bench_shuffle
[ -x "$sw" ] && [ -x "$bs" ] || { echo "bench-dpdk-wait.sh: build $B first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-dpdk-wait.sh: needs root (namespaces)" >&2; exit 1; }
ns=bdw$$
tmp=$(mktemp -d /tmp/bench-dpdk-wait-XXXXXX)
trap 'ip netns del $ns 2>/dev/null; rm -rf "$tmp"' EXIT

med() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# idle TRANSPORT: % of a core per agent over 10 idle seconds
idle() {
	cl=bdw$$$1 d=$tmp/$1
	"$sw" cluster up --racks 1 --nodes-per-rack 2 --transport "$1" --name "$cl" --dir "$d" \
		>"$tmp/up" 2>&1 || { cat "$tmp/up" >&2; return 1; }
	sleep 2
	pids=$(for n in "$cl-r0n0" "$cl-r0n1"; do ip netns pids "$n"; done |
		while read -r p; do grep -qx swagent "/proc/$p/comm" 2>/dev/null && echo "$p"; done)
	ticks() { for p in $pids; do cut -d' ' -f14,15 "/proc/$p/stat"; done | awk '{s += $1 + $2} END {print s}'; }
	a=$(ticks)
	sleep 10
	b=$(ticks)
	"$sw" cluster down --dir "$d" >/dev/null
	echo "$a $b $(getconf CLK_TCK)" | awk '{printf "%.2f\n", ($2 - $1) / $3 / 10 / 2 * 100}'
}

ip netns add "$ns" || exit 1
ip netns exec "$ns" sh -c 'ip link set lo up && sysctl -qw net.ipv4.conf.lo.route_localnet=1 \
	net.ipv4.conf.lo.accept_local=1 net.ipv4.icmp_ratemask=0' || exit 1
lat() { # BACKEND SIZE COLUMN
	for _ in $(seq "$RUNS"); do
		if [ "$1" = dpdk ]; then
			SW_DP_DPDK_PORT=net_af_packet0,iface=lo SW_DP_DPDK_IP=127.0.0.1 \
				SW_DP_DPDK_NEIGH=127.0.0.1=00:00:00:00:00:00 \
				ip netns exec "$ns" "$bs" lat dpdk "$2" 1000 2>/dev/null
		else
			"$bs" lat tcp "$2" 1000
		fi | awk -v c="$3" '{print $c}'
	done | med
}

printf '# idle agents: %% of a core each (medians of %s runs of 10 s)\n' "$RUNS"
for t in dpdk tcp; do
	printf '%-5s %6s\n' "$t" "$(for _ in $(seq "$RUNS"); do idle "$t"; done | med)"
done
printf '# fetch latency, us (medians of %s runs of 1000 fetches)\n' "$RUNS"
printf '%-5s %8s %8s %8s\n' backend size median p99
for s in $SIZES; do
	for t in dpdk tcp; do
		printf '%-5s %8s %8s %8s\n' "$t" "$s" "$(lat "$t" "$s" 1)" "$(lat "$t" "$s" 2)"
	done
done
