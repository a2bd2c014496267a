# Sourced by the live suites: a temp dir, a key, swcontroller and swagents as real processes on
# 127.0.0.x, and the waits and checks they share. Before sourcing: ctl_bin, agent_bin, swctl
# (absolute paths). Every process started here is killed (by its pid) on exit.
dir=$(mktemp -d /tmp/sw-live-test-XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
. "${live_dir:-$(dirname "$0")}/../check.sh"
# wait_for FILE TEXT [N]: waits until more than N (0) lines of FILE have TEXT; after 120 s
# shows the end of FILE and fails
wait_for() {
	i=0
	until [ "$(grep -cF -- "$2" "$1" 2>/dev/null)" -gt "${3:-0}" ]; do
		i=$((i + 1))
		[ $i -le 1200 ] || { has "$1" "$2"; return 1; }
		sleep 0.1
	done
}
# count FILE TEXT: lines of FILE with TEXT
count() { grep -cF -- "$2" "$1"; }

"$swctl" keygen "$dir/key" >/dev/null
"$swctl" keygen "$dir/other.key" >/dev/null
cat >"$dir/ctl.conf" <<CONF
listen = 127.0.0.1:0
http_listen = 127.0.0.1:0
key_file = $dir/key
state_db = $dir/ctl.db
trace_file = $dir/trace.jsonl
heartbeat_ms = 300
lost_after_ms = ${lost_after_ms:-5000}
node = r0n1 0
node = r0n2 0
node = r1n1 1
node = r1n2 1
CONF

# start_controller: on the config above; its pid in $ctl_pid, agents' address in $agents, the
# HTTP API in $SWCTL_CONTROLLER. Every start appends to $dir/ctl.log.
start_controller() {
	starts=$(count "$dir/ctl.log" "listening for agents" 2>/dev/null || echo 0)
	"$ctl_bin" -c "$dir/ctl.conf" 2>>"$dir/ctl.log" &
	ctl_pid=$!
	pids="$pids $ctl_pid"
	until [ "$(count "$dir/ctl.log" "listening for agents")" -gt "$starts" ]; do sleep 0.1; done
	agents=$(sed -n 's/.*listening for agents on \([0-9.:]*\),.*/\1/p' "$dir/ctl.log" | tail -1)
	SWCTL_CONTROLLER=$(sed -n 's/.*HTTP on \([0-9.:]*\);.*/\1/p' "$dir/ctl.log" | tail -1)
	export SWCTL_CONTROLLER
}

# start_agent NAME RACK IP KEY [NODE_ID]: an agent in $dir/NAME (log: $dir/NAME/log) for node
# NODE_ID (default NAME); its pid in $agent_pid and $pid_NAME
start_agent() {
	mkdir -p "$dir/$1"
	cat >"$dir/$1/conf" <<CONF
node_id = ${5:-$1}
rack = $2
controller = $agents
shuffle_listen = $3:0
replica_listen = $3:0
metrics_listen = $3:0
key_file = $4
store_dir = $dir/$1
data_dir = $dir/$1/data
CONF
	"$agent_bin" --config "$dir/$1/conf" 2>>"$dir/$1/log" &
	agent_pid=$!
	eval "pid_$1=$agent_pid"
	pids="$pids $agent_pid"
}
start_cluster() {
	start_controller
	start_agent r0n1 0 127.0.0.2 "$dir/key"
	start_agent r0n2 0 127.0.0.3 "$dir/key"
	start_agent r1n1 1 127.0.0.4 "$dir/key"
	start_agent r1n2 1 127.0.0.5 "$dir/key"
	for n in r0n1 r0n2 r1n1 r1n2; do wait_for "$dir/ctl.log" "registered as $n"; done
}
# an address an agent printed in its first line: addr NODE shuffle|replicas|metrics
addr() { sed -n "s/.* $2 on \([0-9.:]*\).*/\1/p" "$dir/$1/log" | head -1; }

# jobs_done N [SECS]: waits until N jobs are done, fails at once if one failed, or after SECS
# (default: no bound but the suite's)
jobs_done() {
	until=$(($(date +%s) + ${2:-0}))
	while :; do
		"$swctl" jobs >"$dir/jobs" || return 1
		grep -q " failed " "$dir/jobs" && { cat "$dir/jobs"; return 1; }
		[ "$(grep -c " done " "$dir/jobs")" -ge "$1" ] && return 0
		[ -z "${2:-}" ] || [ "$(date +%s)" -le "$until" ] || {
			echo "  not done after $2 s:"
			sed 's/^/  | /' "$dir/jobs"
			return 1
		}
		sleep 0.2
	done
}
# metric_sum NAME NODE...: the sum of an agent counter over these agents
metric_sum() {
	k=$1
	shift
	for n in "$@"; do
		curl -sf "http://$(addr "$n" metrics)/metrics" | awk -v k="$k" '$1 == k {print $2}'
	done | awk '{s += $1} END {print s + 0}'
}
# trace_replays: swctl replay-trace finds the recorded scheduler calls replay identically
trace_replays() {
	"$swctl" replay-trace "$dir/trace.jsonl" >"$dir/replay" 2>&1 && has "$dir/replay" "identical"
}
# node_field NODE COLUMN: a column of the node's line in `swctl status`
node_field() { "$swctl" status | awk -v n="$1" -v c="$2" '$1 == n {print $c}'; }
