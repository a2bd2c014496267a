#!/bin/sh
# Scheduler benchmark: the median time of one assignment decision (a heartbeat that returns
# one task) on a 10,000-node cluster with 1,000 live jobs, per policy, against the 5 us target
# and against FIFO, the baseline scheduler measured in the same run; then SAMP and SARP per job
# against their 1 ms target, and one RAS control cycle (plan/ras) against its 50 ms target.
# usage: perf/bench-sched.sh [BUILD_DIR]   (default: build-release, configured if missing)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-release}
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
meson compile -C "$build" perf/bench_sched >/dev/null
"$build/perf/bench_sched" --benchmark_filter='decision|samp|sarp|plan' 2>/dev/null | awk '
	# Google Benchmark prints "name/.../manual_time_median   <time> <unit>  ..."
	function ns(v, u) { return u == "us" ? v * 1000 : u == "ms" ? v * 1e6 : v }
	/manual_time_median/ {
		split($1, part, "/")
		t[part[1] "/" part[2]] = ns($2, $3)
		order[n++] = part[1] "/" part[2]
	}
	END {
		base = t["decision/fifo"] - t["decision/clock-only"]
		printf "%-22s %12s %12s %10s\n", "benchmark", "median", "vs target", "vs fifo"
		for (i = 0; i < n; i++) {
			k = order[i]
			if (k == "decision/clock-only")
				continue
			v = t[k] - (k ~ /^decision/ ? t["decision/clock-only"] : 0)
			target = k ~ /^decision/ ? 5000 : k ~ /^plan/ ? 50e6 : 1e6
			printf "%-22s %9.2f us %12.3f %10s\n", k, v / 1000, v / target,
			       k ~ /^decision/ ? sprintf("%.2f", v / base) : "-"
		}
		print "(decision times exclude the two clock reads that bracket them: decision/clock-only)"
	}'
