#!/bin/bash
# Writes a synthetic SWIM-format day (job id, submit s, gap s, input, shuffle, output bytes)
# to stdout, the way SWIM grows a trace for a larger cluster: JOBS jobs drawn with replacement
# from a real day's jobs (FB-2009 by default), Poisson arrivals over 24 h, and every job's
# bytes multiplied by one factor found by bisection so that the day holds MAPS map tasks of
# 64 MiB (a job's maps capped at swctl's bound of 2^20 by capping its input). Deterministic:
# the draws come from a MINSTD generator written out in awk, so every awk gives the same day.
# usage: perf/swim-synth.sh [JOBS [MAPS [SEED [TRACE]]]]   (defaults 25000, 16000000, 1, FB-2009 day 0)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-25000}
maps=${2:-16000000}
seed=${3:-1}
trace=${4:-${SW_SWIM_TRACE:-../shared/traces/swim/FB-2009_samples_24_times_1hr_0.tsv}}

awk -F'\t' -v jobs="$jobs" -v maps="$maps" -v seed="$seed" '
function rnd() { state = (state * 48271) % 2147483647; return state / 2147483647 }
# Maps of a job as the simulator counts them: one per block of input, or of what a job
# without input emits; at least one; at most 2^20.
function nmaps(i, s, o, k,   b, m) {
	b = i > 0 ? i : (s > 0 ? s : o)
	m = int((b * k + block - 1) / block)
	if (m < 1) m = 1
	return m > cap ? cap : m
}
{ in_[NR] = $4; sh[NR] = $5; out[NR] = $6 }
END {
	block = 67108864; cap = 1048576; day = 86400
	state = (seed * 7919) % 2147483647; if (state == 0) state = 1
	for (j = 1; j <= jobs; j++) pick[j] = 1 + int(rnd() * NR)
	lo = 0; hi = 1e6
	for (it = 0; it < 100; it++) {
		k = (lo + hi) / 2; total = 0
		for (j = 1; j <= jobs; j++) total += nmaps(in_[pick[j]], sh[pick[j]], out[pick[j]], k)
		if (total < maps) lo = k; else hi = k
	}
	k = hi; t = 0; prev = 0
	for (j = 1; j <= jobs; j++) {
		p = pick[j]
		gap = -log(1 - rnd()) * day / jobs
		t += gap
		i = int(in_[p] * k); if (i > cap * block) i = cap * block
		printf "job%d\t%d\t%d\t%.0f\t%.0f\t%.0f\n", j - 1, int(t), int(t) - prev, i, int(sh[p] * k), int(out[p] * k)
		prev = int(t)
	}
	printf "size factor %.4f, %d jobs\n", k, jobs > "/dev/stderr"
}' "$trace"
