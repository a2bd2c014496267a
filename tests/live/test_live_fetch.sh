#!/bin/sh
# A node whose shuffle server stops answering while its agent keeps heartbeating: the
# controller never declares it lost, so only the reduces' fetch-failure reports can get its
# map output made again. Runs in a network namespace of its own (unshare, as root), where tc
# on lo holds back every packet the node's shuffle port sends: a real silent server, the
# agent's heartbeats and replica port untouched. Every job completes, every checksum matches,
# the node stays registered, and the trace replays. Arguments: the swcontroller, swagent and
# swctl binaries.
set -u
if [ "$(id -u)" != 0 ]; then
	echo "a network namespace of its own needs root: skipped"
	exit 77
fi
if [ -z "${SW_LIVE_NETNS:-}" ]; then
	SW_LIVE_NETNS=1 exec unshare --net sh "$0" "$@"
fi
ip link set lo up
ctl_bin=$(realpath "$1")
agent_bin=$(realpath "$2")
swctl=$(realpath "$3")
. "$(dirname "$0")/live.sh"
start_cluster
nodes="r0n1 r0n2 r1n1 r1n2"

# silence NODE: whatever the node's shuffle server sends (answers, SYN-ACKs) waits in an htb
# class of 8 bit/s (no drop action or netem here: platform.md); the rest of lo is not limited
silence() {
	srv=$(addr "$1" shuffle)
	tc qdisc add dev lo root handle 1: htb default 10 &&
		tc class add dev lo parent 1: classid 1:10 htb rate 100gbit quantum 200000 &&
		tc class add dev lo parent 1: classid 1:20 htb rate 8bit ceil 8bit quantum 1514 &&
		tc filter add dev lo parent 1: protocol ip prio 1 u32 \
			match ip src "${srv%:*}/32" match ip sport "${srv#*:}" 0xffff flowid 1:20
}

silent_server() {
	silence r0n2 || return 1
	# 16 maps of 0.5 s on 8 map slots: every node runs some, r0n2 its 4 node-local ones at
	# least; two reduces fetch from all of them
	"$swctl" submit --name silent --maps 16 --reduces 2 --input-bytes 20000000 --rate 4e7 \
		--map-output-bytes 200000 >/dev/null || return 1
	jobs_done 1 120 && has "$dir/ctl.log" "could not fetch map" &&
		has "$dir/ctl.log" "reduces could not fetch its output from r0n2" &&
		! grep -q "node r0n2 lost" "$dir/ctl.log" && [ "$(node_field r0n2 4)" = yes ] &&
		[ "$(metric_sum swagent_checksum_failures_total $nodes)" = 0 ] &&
		[ "$(metric_sum swagent_fetch_failures_total $nodes)" -ge 3 ]
}
check "a shuffle server that stops answering while its agent heartbeats: reduces report the failed fetches, its maps run elsewhere, the job completes, 0 checksum failures" silent_server

check "the scheduler-call trace with the re-run maps replays identically" trace_replays

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
