#!/bin/sh
# The live service under faults, with real processes: swcontroller and 4 swagents (2 racks) on
# 127.0.0.2-5. The controller killed with SIGKILL mid-job and restarted on its state database;
# an agent claiming the id of a live node, then of a dead one; an agent killed and restarted
# on its store (its map output kept); malformed, oversized and
# truncated frames at the controller's agent port and at an agent's replica and shuffle ports;
# an agent stopped with SIGSTOP (its socket stays open) until it is declared lost.
# Arguments: the swcontroller, swagent, swctl and badpeer binaries.
set -u
ctl_bin=$(realpath "$1") # meson passes paths relative to the build directory
agent_bin=$(realpath "$2")
swctl=$(realpath "$3")
badpeer=$(realpath "$4")
. "$(dirname "$0")/live.sh"
start_cluster
nodes="r0n1 r0n2 r1n1 r1n2"
# every daemon of this suite still runs
all_alive() {
	for p in $ctl_pid $pid_r0n1 $pid_r0n2 $pid_r1n1 $pid_r1n2; do
		kill -0 "$p" 2>/dev/null || { echo "  process $p is gone"; return 1; }
	done
}
no_checksum_failures() {
	n=$(metric_sum swagent_checksum_failures_total $nodes)
	[ "$n" = 0 ] || { echo "  $n checksum failures"; false; }
}
# ran_job NAME: submits a small job and waits until it and every earlier one are done
ran_job() {
	id=$("$swctl" submit --name "$1" --maps 8 --reduces 2 --input-bytes 1000000 --rate 1e9) &&
		jobs_done "$id"
}

controller_restart() {
	# the restarted controller must listen where the agents dial
	sed -i "s/^listen = .*/listen = $agents/" "$dir/ctl.conf"
	# maps of 0.5 s; little output, since an agent writes and fsyncs it inside its event loop
	# (a loaded disk then stalls its heartbeats)
	"$swctl" submit --name before --maps 16 --reduces 4 --input-bytes 20000000 --rate 4e7 \
		--map-output-bytes 2000000 >/dev/null || return 1
	wait_for "$dir/r0n1/log" "job 1 map"
	kill -9 "$ctl_pid"
	wait "$ctl_pid" 2>/dev/null
	start_controller
	for n in $nodes; do
		until [ "$(metric_sum swagent_registrations_total "$n")" = 2 ]; do sleep 0.2; done
	done
	# a reduce whose end the dying controller never recorded runs again: count names
	jobs_done 1 && no_checksum_failures &&
		outputs=$(ls "$dir"/*/data/output | grep "^job-1\.reduce-" | sort -u | wc -l) &&
		{ [ "$outputs" = 4 ] || { echo "  outputs of $outputs reduces"; false; }; } &&
		trace_replays
}
check "the controller killed with SIGKILL mid-job and restarted: every agent registers again, the job completes, 0 checksum failures, the trace replays" controller_restart

live_id_claimed() {
	before=$(metric_sum swagent_registrations_total r0n2)
	start_agent impostor 0 127.0.0.6 "$dir/key" r0n2
	wait_for "$dir/impostor/log" "refused this agent: node r0n2 is connected already, from 127.0.0.1:" &&
		has "$dir/ctl.log" "refused: node r0n2 is connected already, from 127.0.0.1:" &&
		[ "$(node_field r0n2 4)" = yes ] && ran_job claimed &&
		[ "$(metric_sum swagent_registrations_total r0n2)" = "$before" ]
}
check "an agent claiming the id of a live node is refused with the reason on both sides; the node keeps working" live_id_claimed

dead_id_claimed() {
	before=$(count "$dir/ctl.log" "registered as r0n2")
	kill -9 "$pid_impostor" "$pid_r0n2"
	start_agent r0n2 0 127.0.0.3 "$dir/key"
	wait_for "$dir/ctl.log" "node r0n2 restarted (new boot epoch)" &&
		[ "$(count "$dir/ctl.log" "registered as r0n2")" = $((before + 1)) ] &&
		ran_job restarted
}
check "an agent with a new boot epoch claiming a node whose agent is gone is accepted as that node restarted" dead_id_claimed

# maps_succeeded JOB: map attempts of JOB that succeeded, over every agent's log
maps_succeeded() {
	cat "$dir"/r?n?/log | grep -c "job $1 map [0-9]* attempt [0-9]* succeeded"
}
restart_keeps_output() {
	restarts=$(count "$dir/ctl.log" "node r1n1 restarted (new boot epoch)")
	# maps of 0.25 s; each reduce computes 4 s once it has fetched its 16 MB
	id=$("$swctl" submit --name kept --maps 16 --reduces 4 --input-bytes 1000000 --rate 4e6 \
		--map-output-bytes 4000000 --replicas 0) || return 1
	i=0
	until [ "$(maps_succeeded "$id")" -ge 16 ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { echo "  the maps of job $id did not finish"; return 1; }
		sleep 0.1
	done
	grep -q "job $id map [0-9]* attempt [0-9]* succeeded" "$dir/r1n1/log" ||
		{ echo "  no map of job $id ran on r1n1: nothing to keep"; return 1; }
	kill -9 "$pid_r1n1"
	wait "$pid_r1n1" 2>/dev/null
	start_agent r1n1 1 127.0.0.4 "$dir/key"
	wait_for "$dir/ctl.log" "node r1n1 restarted (new boot epoch)" "$restarts" || return 1
	line=$(grep -F "node r1n1 restarted (new boot epoch)" "$dir/ctl.log" | tail -1)
	kept=$(echo "$line" | sed -n 's/.*map outputs there: \([0-9]*\) kept.*/\1/p')
	echo "  $line"
	[ "${kept:-0}" -ge 1 ] || { echo "  no map output kept"; return 1; }
	jobs_done "$id" && no_checksum_failures && trace_replays
}
check "an agent killed with SIGKILL and restarted keeps its map output: the controller keeps its finished maps instead of running them again, and the job completes with 0 checksum failures" restart_keeps_output

# bad_peer ADDR LOG TEXT MODE [ARG]: badpeer misbehaves at ADDR; then LOG has a line with TEXT
# that names badpeer's address
bad_peer() {
	addr_=$1 log=$2 text=$3
	shift 3
	me=$("$badpeer" "$addr_" "$@") || return 1
	i=0
	until grep -F -- "$text" "$log" | grep -qF -- "$me"; do
		i=$((i + 1))
		[ $i -le 300 ] || { echo "  no line with '$text' and $me in $log:"; tail -5 "$log"; return 1; }
		sleep 0.1
	done
}
bad_frames() {
	r=$(addr r0n1 replicas) s=$(addr r0n1 shuffle) a=$dir/r0n1/log
	bad_peer "$agents" "$dir/ctl.log" "(?): malformed frame from the peer" garbage &&
		bad_peer "$agents" "$dir/ctl.log" "(?): message larger than" huge &&
		bad_peer "$agents" "$dir/ctl.log" "(?): connection reset" truncated &&
		bad_peer "$agents" "$dir/ctl.log" "(?): malformed Hello" junk 1 &&
		bad_peer "$agents" "$dir/ctl.log" "(r0n1): the agent closed the connection" hello r0n1 &&
		bad_peer "$r" "$a" "closed: malformed frame from the peer" garbage &&
		bad_peer "$r" "$a" "closed: message larger than" huge &&
		bad_peer "$r" "$a" "closed: connection reset" truncated &&
		bad_peer "$r" "$a" "refused: " junk 0x53575250 &&
		bad_peer "$s" "$a" "cut off" garbage &&
		bad_peer "$s" "$a" "cut off" huge &&
		bad_peer "$s" "$a" "cut off" truncated &&
		bad_peer "$s" "$a" "malformed request frame" junk 0 &&
		all_alive && [ "$(node_field r0n1 4)" = yes ] && ran_job after-junk
}
check "garbage, oversized, truncated and malformed frames and a dropped handshake at the controller's agent port and an agent's replica and shuffle ports: each logged with its sender, no daemon stops, the cluster runs the next job" bad_frames

vanished() {
	id=$("$swctl" submit --name stopped --maps 16 --reduces 2 --input-bytes 20000000 --rate 4e7 \
		--map-output-bytes 2000000 --replicas 0) || return 1
	wait_for "$dir/r1n2/log" "job $id map" || return 1
	lost=$(count "$dir/ctl.log" "node r1n2 lost: no heartbeat for")
	told=$(count "$dir/r1n2/log" "refused this agent: node r1n2 was declared lost: no heartbeat")
	back=$(count "$dir/ctl.log" "node r1n2 is back")
	registered=$(count "$dir/r1n2/log" "registered with controller")
	kill -STOP "$pid_r1n2"
	wait_for "$dir/ctl.log" "node r1n2 lost: no heartbeat for" "$lost" &&
		jobs_done "$id" && [ "$(node_field r1n2 3)" = lost ] &&
		kill -CONT "$pid_r1n2" &&
		wait_for "$dir/r1n2/log" "refused this agent: node r1n2 was declared lost: no heartbeat" \
			"$told" &&
		wait_for "$dir/ctl.log" "node r1n2 is back" "$back" &&
		wait_for "$dir/r1n2/log" "registered with controller" "$registered" &&
		ran_job after-stop && no_checksum_failures
}
check "an agent stopped with SIGSTOP is declared lost after lost_after_ms, its job completes elsewhere, and once continued it is told so and registers again" vanished

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
