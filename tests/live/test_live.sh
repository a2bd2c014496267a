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
dir=$(mktemp -d /tmp/sw-live-test-XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../check.sh"
# waits (bounded by meson's timeout) until FILE has the text
wait_for() { until grep -qF -- "$2" "$1"; do sleep 0.1; done; }

"$swctl" keygen "$dir/key" >/dev/null
"$swctl" keygen "$dir/other.key" >/dev/null
cat >"$dir/ctl.conf" <<CONF
listen = 127.0.0.1:0
http_listen = 127.0.0.1:0
key_file = $dir/key
state_db = $dir/ctl.db
trace_file = $dir/trace.jsonl
heartbeat_ms = 300
lost_after_ms = 10000
node = r0n1 0
node = r0n2 0
node = r1n1 1
node = r1n2 1
CONF
"$ctl_bin" -c "$dir/ctl.conf" 2>"$dir/ctl.log" &
pids="$pids $!"
wait_for "$dir/ctl.log" "listening for agents"
agents=$(sed -n 's/.*listening for agents on \([0-9.:]*\),.*/\1/p' "$dir/ctl.log")
export SWCTL_CONTROLLER=$(sed -n 's/.*HTTP on \([0-9.:]*\);.*/\1/p' "$dir/ctl.log")

# start_agent NAME RACK IP KEY: its pid in $agent_pid
start_agent() {
	mkdir -p "$dir/$1"
	cat >"$dir/$1/conf" <<CONF
node_id = $1
rack = $2
controller = $agents
shuffle_listen = $3:0
replica_listen = $3:0
metrics_listen = $3:0
key_file = $4
store_dir = $dir/$1
data_dir = $dir/$1/data
CONF
	"$agent_bin" --config "$dir/$1/conf" 2>"$dir/$1/log" &
	agent_pid=$!
	pids="$pids $agent_pid"
}
start_agent r0n1 0 127.0.0.2 "$dir/key"
start_agent r0n2 0 127.0.0.3 "$dir/key"
start_agent r1n1 1 127.0.0.4 "$dir/key"
victim=$agent_pid
start_agent r1n2 1 127.0.0.5 "$dir/key"
for n in r0n1 r0n2 r1n1 r1n2; do wait_for "$dir/ctl.log" "registered as $n"; done

# jobs_done N: waits until N jobs are done, fails at once if one failed
jobs_done() {
	while :; do
		"$swctl" jobs >"$dir/jobs" || return 1
		grep -q " failed " "$dir/jobs" && { cat "$dir/jobs"; return 1; }
		[ "$(grep -c " done " "$dir/jobs")" -ge "$1" ] && return 0
		sleep 0.2
	done
}
metric_sum() { # NAME: the sum of an agent counter over the live agents
	for n in r0n1 r0n2 r1n2; do
		m=$(sed -n 's/.*metrics on \([0-9.:]*\),.*/\1/p' "$dir/$n/log")
		curl -sf "http://$m/metrics" | awk -v k="$1" '$1 == k {print $2}'
	done | awk '{s += $1} END {print s + 0}'
}

small_mix() {
	"$swctl" submit --name sort --maps 8 --reduces 4 --input-bytes 2000000 --rate 1e9 \
		>/dev/null &&
		"$swctl" submit --name grep --maps 6 --reduces 1 --input-bytes 1000000 \
			--map-output-bytes 100000 --rate 1e9 --user 1 >/dev/null &&
		"$swctl" submit --name scan --maps 4 --reduces 0 --input-bytes 1000000 --rate 1e9 \
			>/dev/null &&
		jobs_done 3
}
check "a small mix of three jobs runs to completion on 4 agents" small_mix

kill_an_agent() {
	"$swctl" submit --name k9 --maps 16 --reduces 4 --input-bytes 20000000 --rate 4e7 \
		>/dev/null || return 1
	wait_for "$dir/r1n1/log" "job 4 map"
	kill -9 "$victim"
	jobs_done 4 && has "$dir/ctl.log" "node r1n1 lost" &&
		[ "$(metric_sum swagent_checksum_failures_total)" = 0 ]
}
check "an agent killed with SIGKILL mid-job: its maps re-run, the job completes, 0 checksum failures" kill_an_agent

replay() {
	"$swctl" replay-trace "$dir/trace.jsonl" >"$dir/replay" 2>&1 && has "$dir/replay" "identical"
}
check "the scheduler-call trace replays identically" replay

wrong_key() {
	start_agent r1n1 1 127.0.0.4 "$dir/other.key"
	# the controller proves its key first: the agent sees the proof fail and hangs up
	wait_for "$dir/r1n1/log" "did not prove the cluster key"
	"$swctl" status >"$dir/status" && [ "$(awk '$1 == "r1n1" {print $4}' "$dir/status")" = no ]
}
check "an agent with another cluster key hangs up before it proves anything, and is not registered" wrong_key

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
