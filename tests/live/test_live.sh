#!/bin/sh
# The live service on loopback, with real processes: swcontroller and 4 swagents (2 racks) on
# 127.0.0.2-5. A small mix runs to completion, the scheduler-call trace replays identically,
# an agent killed with SIGKILL in the middle of a job costs nothing (its maps re-run, every
# reducer's data checks out), and an agent without the cluster key is refused with a clear log
# line. Arguments: the swcontroller, swagent and swctl binaries.
set -u
ctl_bin=$(realpath "$1") # meson passes paths relative to the build directory
agent_bin=$(realpath "$2")
swctl=$(realpath "$3")
. "$(dirname "$0")/live.sh"
start_cluster

small_mix() {
	"$swctl" submit --name sort --maps 8 --reduces 4 --input-bytes 2000000 --rate 1e9 \
		>/dev/null &&
		"$swctl" submit --name grep --maps 6 --reduces 1 --input-bytes 1000000 \
			--map-output-bytes 100000 --rate 1e9 --user 1 --deadline 3600 >/dev/null &&
		"$swctl" submit --name scan --maps 4 --reduces 0 --input-bytes 1000000 --rate 1e9 \
			>/dev/null &&
		jobs_done 3
}
check "a small mix of three jobs (one with a deadline) runs to completion on 4 agents" small_mix

kill_an_agent() {
	# small outputs keep the suite short; the heartbeats of agents whose disk is busy are
	# measured by perf/heartbeat-gaps.sh
	"$swctl" submit --name k9 --maps 16 --reduces 4 --input-bytes 20000000 --rate 4e7 \
		--map-output-bytes 2000000 >/dev/null || return 1
	wait_for "$dir/r1n1/log" "job 4 map"
	kill -9 "$pid_r1n1"
	jobs_done 4 && has "$dir/ctl.log" "node r1n1 lost" &&
		[ "$(metric_sum swagent_checksum_failures_total r0n1 r0n2 r1n2)" = 0 ]
}
check "an agent killed with SIGKILL mid-job: its maps re-run, the job completes, 0 checksum failures" kill_an_agent

check "the scheduler-call trace replays identically" trace_replays

wrong_key() {
	start_agent r1n1 1 127.0.0.4 "$dir/other.key"
	# the controller proves its key first: the agent sees the proof fail and hangs up
	wait_for "$dir/r1n1/log" "did not prove the cluster key"
	[ "$(node_field r1n1 4)" = no ]
}
check "an agent with another cluster key hangs up before it proves anything, and is not registered" wrong_key

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
