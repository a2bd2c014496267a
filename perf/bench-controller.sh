#!/bin/sh
# Controller benchmark: N agents (default 10,000) speaking the real wire protocol heartbeat
# every PERIOD_MS (3000) at a real swcontroller for SECS (30) seconds, RUNS (3) times, while
# JOBS (40) map-only jobs of MAPS (5000) maps keep every map slot busy. The load generator
# deals the agents over PROCS (2) processes. Prints per run how late against their schedule
# the heartbeats left (a generator that falls behind measures itself), the heartbeats per
# second sustained against those offered, the heartbeat-to-assignment latency p50/p99 against
# the 5 ms target, the controller's CPU over the heartbeat phase (registration left out) as a
# fraction of one core and per heartbeat, how long it waited for a CPU while it was runnable
# (/proc/PID/schedstat: on a shared machine the latency is mostly that), the load generator's
# CPU and the load average; then the medians. STATE_SYNC sets the controller's state_sync,
# TRACE=1 keeps a scheduler-call trace, KEEP=1 keeps the work directory (logs, traces).
# usage: perf/bench-controller.sh [BUILD_DIR]   (default build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
n=${N:-10000}
period=${PERIOD_MS:-3000}
secs=${SECS:-30}
runs=${RUNS:-3}
ulimit -n "$(ulimit -Hn)" # one socket per agent on each side
work=$(mktemp -d /tmp/sw-bench-ctl-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
"$build/tools/swctl/swctl" keygen "$work/key"
{
	echo "listen = 127.0.0.1:0"
	echo "http_listen = 127.0.0.1:0"
	echo "key_file = $work/key"
	echo "policy = sw-fair"
	echo "state_sync = ${STATE_SYNC:-normal}"
	echo "heartbeat_ms = $period"
	echo "lost_after_ms = $((period * 10))"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "node = n%d %d\n", i, int(i / 40) }'
} >"$work/base.conf"
ticks=$(getconf CLK_TCK)
for run in $(seq "$runs"); do
	conf="$work/run$run.conf"
	{ cat "$work/base.conf"; echo "state_db = $work/state$run.db"; [ -z "${TRACE:-}" ] || echo "trace_file = $work/trace$run.jsonl"; } >"$conf"
	"$build/controller/swcontroller" -c "$conf" 2>"$work/log$run" &
	pid=$!
	while ! grep -q "listening for agents" "$work/log$run"; do sleep 0.1; done
	agents=$(sed -n 's/.*listening for agents on \([0-9.:]*\), HTTP on \([0-9.:]*\);.*/\1/p' "$work/log$run")
	http=$(sed -n 's/.*listening for agents on \([0-9.:]*\), HTTP on \([0-9.:]*\);.*/\2/p' "$work/log$run")
	for j in $(seq "${JOBS:-40}"); do
		"$build/tools/swctl/swctl" submit --controller "$http" --maps "${MAPS:-5000}" --reduces 0 \
			--input-bytes 1000 --user $(((j - 1) % 16)) >/dev/null
	done
	command time -f "load generator CPU: %U user + %S system s" -o "$work/gencpu$run" \
		"$build/perf/bench_controller" "$agents" "$work/key" "$n" "$period" "$secs" "${PROCS:-2}" \
		>"$work/out$run" &
	gen=$!
	# The controller's CPU counts from the end of the registration to the last answer.
	while ! grep -q "^registered" "$work/out$run" && kill -0 "$gen" 2>/dev/null; do sleep 0.05; done
	cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	rq0=$(cut -d' ' -f2 "/proc/$pid/schedstat")
	t0=$(date +%s.%N)
	wait "$gen"
	cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	rq1=$(cut -d' ' -f2 "/proc/$pid/schedstat")
	t1=$(date +%s.%N)
	kill "$pid"
	wait "$pid" || true
	pid=
	cat "$work/gencpu$run" >>"$work/out$run"
	hb=$(sed -n 's/^heartbeats \([0-9]*\) .*/\1/p' "$work/out$run")
	# schedstat's second field: nanoseconds spent runnable but waiting for a CPU.
	awk -v c0="$cpu0" -v c1="$cpu1" -v t0="$t0" -v t1="$t1" -v hz="$ticks" -v hb="$hb" \
		-v rq0="$rq0" -v rq1="$rq1" \
		'BEGIN { printf "controller CPU: %.3f of one core, %.1f us per heartbeat (heartbeat phase); waited for a CPU %.2f s of %.2f s\n", (c1 - c0) / hz / (t1 - t0), (c1 - c0) / hz / hb * 1e6, (rq1 - rq0) / 1e9, t1 - t0 }' \
		>>"$work/out$run"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/out$run"
	cat "$work/out$run"
done
cat "$work"/out* | awk -v target=5 '
	BEGIN { n = 0; m = 0; k = 0 }
	/^heartbeats/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /\/s$/ && $(i - 1) ~ /s:$/) { sub(/\/s/, "", $i); hb[n] = $i }
			if ($i == "p50") p50[n] = $(i + 1)
			if ($i == "p99") { v = $(i + 1); sub(/,/, "", v); p99[n] = v }
		}
		n++
	}
	/^controller CPU/ { cpu[m] = $3; us[m] = $7; rq[m++] = $(NF - 4) }
	/^sent late/ { for (i = 1; i <= NF; i++) if ($i == "p99") late[k++] = $(i + 1) }
	function median(a, k,   i, j, t) {
		for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int(k / 2)]
	}
	END {
		printf "median of %d runs: %.0f heartbeats/s, sent late p99 %.3f ms, latency p50 %.3f ms, p99 %.3f ms (%.2f of the %d ms target), controller CPU %.3f of one core, %.1f us per heartbeat, waiting for a CPU %.2f s\n",
		       n, median(hb, n), median(late, k), median(p50, n), median(p99, n), median(p99, n) / target, target, median(cpu, m), median(us, m), median(rq, m)
	}'
