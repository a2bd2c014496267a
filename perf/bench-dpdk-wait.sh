#!/bin/sh
# What waiting costs the dpdk backend (dataplane/README.md, "Waiting"), against tcp measured in
# the same run: CPU of idle agents (a 1 x 2 swctl cluster up for 10 s doing nothing, % of a
# core per agent) and shuffle fetch latency (bench_shuffle lat, median and p99 in us, of 1 KiB
# and 64 KiB fetches: a frame each way, then 64 KiB in frames of the link's MTU), the map side
# and the fetcher in two processes, on each link of LINKS:
#   memif     dpdk over memif between the two processes, MTU 9000 (8 frames per 64 KiB)
#   memifzc   the same with both processes' EAL memory on hugepages and the fetcher's memif
#             client in zero-copy mode (one copy of each frame through memif, not two; the
#             script reserves the hugepages and gives them back)
#   vethMTU   dpdk on af_packet on a veth pair of that MTU between two namespaces made here, as
#             the emulated racks run it (their veths have 1500: 46 frames per 64 KiB); tcp over
#             the same veth beside it
#   lo1500    dpdk on af_packet on the loopback of a namespace, MTU 1500 (sessions 24-25's
#             figure: every frame through the kernel twice)
# and tcp over loopback, the reference the target is stated against (issue 11: dpdk's 64 KiB
# p50 below it); the last column is each p50 over that tcp's. Medians of RUNS runs, the links
# interleaved within each run. Root.
# Usage: perf/bench-dpdk-wait.sh [BUILD_DIR]
#        (env RUNS=3, SIZES="1024 65536", COUNT=1000,
#        LINKS="memif memifzc veth9000 veth1500 lo1500",
#        IDLE=1: 0 leaves out the idle agents, HOG=0: 1 pins the fetches of every row and a
#        CPU-bound loop to the last CPU, as a map task beside an agent's shuffle)
set -u
B=${1:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-1024 65536}
COUNT=${COUNT:-1000}
LINKS=${LINKS:-memif memifzc veth9000 veth1500 lo1500}
IDLE=${IDLE:-1}
HOG=${HOG:-0}
sw=$B/tools/swctl/swctl bs=$B/perf/bench_shuffle
[ -x "$sw" ] && [ -x "$bs" ] || { echo "bench-dpdk-wait.sh: build $B first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-dpdk-wait.sh: needs root (namespaces)" >&2; exit 1; }
ns=dpdk-bdw$$
tmp=$(mktemp -d /tmp/bench-dpdk-wait-XXXXXX)
hog= pin= hugepages=
trap '[ -z "$hog" ] || kill "$hog"; [ -z "$hugepages" ] || echo "$hugepages" >/proc/sys/vm/nr_hugepages
	for x in $ns $ns-map $ns-fetch; do ip netns del $x 2>/dev/null; done; rm -rf "$tmp"' EXIT

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

if [ "$IDLE" != 0 ]; then
	printf '# idle agents: %% of a core each (medians of %s runs of 10 s)\n' "$RUNS"
	for t in dpdk tcp; do
		printf '%-5s %6s\n' "$t" "$(for _ in $(seq "$RUNS"); do idle "$t"; done | med)"
	done
fi

# The links. lo1500: one namespace whose loopback takes frames from 127.0.0.1 to itself.
# vethMTU: a pair from $ns-fetch (10.253.N.1) to $ns-map (10.253.N.2); the kernels answer ARP.
ip netns add "$ns" && ip netns add "$ns-map" && ip netns add "$ns-fetch" || exit 1
ip netns exec "$ns" sh -c 'ip link set lo up && sysctl -qw net.ipv4.conf.lo.route_localnet=1 \
	net.ipv4.conf.lo.accept_local=1 net.ipv4.icmp_ratemask=0' || exit 1
n=0
for l in $LINKS; do
	case $l in veth*) ;; *) continue ;; esac
	n=$((n + 1))
	ip link add "dpdkv$$f$n" netns "$ns-fetch" mtu "${l#veth}" type veth \
		peer name "dpdkv$$m$n" netns "$ns-map" mtu "${l#veth}" &&
		ip -n "$ns-fetch" addr add "10.253.$n.1/24" dev "dpdkv$$f$n" &&
		ip -n "$ns-map" addr add "10.253.$n.2/24" dev "dpdkv$$m$n" &&
		ip -n "$ns-fetch" link set "dpdkv$$f$n" up &&
		ip -n "$ns-map" link set "dpdkv$$m$n" up || exit 1
	eval "veth_$l=$n"
done

case " $LINKS " in *" memifzc "*)
	hugepages=$(cat /proc/sys/vm/nr_hugepages)
	echo $((hugepages + 288)) >/proc/sys/vm/nr_hugepages ;;
esac

if [ "$HOG" != 0 ]; then
	cpu=$(($(nproc) - 1))
	pin="taskset -c $cpu"
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	hog=$!
fi

# one LINK BACKEND SIZE: "p50 p99" of one run of COUNT fetches
one() {
	case $1-$2 in
	memif-dpdk)
		sock=/swdp-bdw-$$
		SW_DP_DPDK_PORT=net_memif0,role=client,socket=$sock \
			SW_BENCH_MAP_DPDK_PORT=net_memif0,role=server,socket=$sock \
			$pin "$bs" lat dpdk "$3" "$COUNT" ;;
	memifzc-dpdk)
		sock=/swdp-bdw-$$
		SW_DP_DPDK_EAL="--no-pci --in-memory --single-file-segments --socket-mem 256 --socket-limit 256 --no-telemetry" \
			SW_DP_DPDK_PORT=net_memif0,role=client,socket=$sock,zero-copy=yes \
			SW_BENCH_MAP_DPDK_PORT=net_memif0,role=server,socket=$sock \
			$pin "$bs" lat dpdk "$3" "$COUNT" ;;
	veth*)
		eval "k=\$veth_$1"
		SW_DP_DPDK_PORT=net_af_packet0,iface=dpdkv$$f$k SW_DP_DPDK_IP=10.253.$k.1 \
			SW_BENCH_MAP_DPDK_PORT=net_af_packet0,iface=dpdkv$$m$k \
			SW_BENCH_MAP_IP=10.253.$k.2 SW_BENCH_MAP_NETNS=$ns-map \
			ip netns exec "$ns-fetch" $pin "$bs" lat "$2" "$3" "$COUNT" ;;
	lo1500-dpdk)
		SW_DP_DPDK_PORT=net_af_packet0,iface=lo SW_DP_DPDK_IP=127.0.0.1 SW_DP_DPDK_MTU=1500 \
			SW_DP_DPDK_NEIGH=127.0.0.1=00:00:00:00:00:00 \
			ip netns exec "$ns" $pin "$bs" lat dpdk "$3" "$COUNT" ;;
	loopback-tcp) $pin "$bs" lat tcp "$3" "$COUNT" ;;
	esac 2>"$tmp/err" || { sed 's/^/  /' "$tmp/err" >&2; echo "- -"; }
}

rows="loopback:tcp"
for l in $LINKS; do
	rows="$rows $l:dpdk"
	case $l in veth*) rows="$rows $l:tcp" ;; esac
done
printf '# fetch latency, us (medians of %s runs of %s fetches)\n' "$RUNS" "$COUNT"
printf '%-9s %-7s %8s %8s %8s %8s\n' link backend size p50 p99 p50/tcp
for s in $SIZES; do
	for _ in $(seq "$RUNS"); do
		for r in $rows; do
			echo "$r $(one "${r%:*}" "${r#*:}" "$s")"
		done
	done >"$tmp/runs"
	ref=$(awk '$1 == "loopback:tcp" {print $2}' "$tmp/runs" | med)
	for r in $rows; do
		p50=$(awk -v r="$r" '$1 == r {print $2}' "$tmp/runs" | med)
		p99=$(awk -v r="$r" '$1 == r {print $3}' "$tmp/runs" | med)
		awk -v l="${r%:*}" -v b="${r#*:}" -v s="$s" -v a="$p50" -v z="$p99" -v t="$ref" 'BEGIN {
			printf "%-9s %-7s %8s %8s %8s %8.2f\n", l, b, s, a, z, a / t }'
	done
done
