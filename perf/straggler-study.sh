#!/bin/bash
# What stragglers do to each scheduler, over several seeds: replays mix2 (2 h of arrivals,
# 0.5 h warm-up) under Fair, SW-fair, Delay and SW-relaxed for every seed and straggler rate
# (a swctl sweep), then gives per scheduler and rate, over the seeds, the median and range of
# (a) its mean and p99 turnaround and its cross-rack bytes against the same seed without
# stragglers, (b) its mean turnaround against Fair's at the same seed and rate, without
# stragglers too, and (c) (b) with stragglers over (b) without, seed by seed: how far
# stragglers move the scheduler against Fair.
# usage: perf/straggler-study.sh [BUILD_DIR [OUT]]   (defaults build-release, perf/results/stragglers)
# env: SEEDS (default 1,2,3,4,5,6,7,8), RATES (default 0,0.05,0.1; must start with 0),
#      SLOWDOWN (default 3), JOBS (simulations at once, default 1).
# A sweep already in OUT/sweep is summarised again without running anything.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
out=${2:-perf/results/stragglers}
seeds=${SEEDS:-1,2,3,4,5,6,7,8}
rates=${RATES:-0,0.05,0.1}
slowdown=${SLOWDOWN:-3}
[ "${rates%%,*}" = 0 ] || { echo "RATES must start with 0 (the reference)" >&2; exit 1; }
if [ ! -f "$out/sweep/sweep.csv" ]; then
	[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
	meson compile -C "$build" swctl >/dev/null
	mkdir -p "$out"
	"$build/tools/swctl/swctl" sweep --param seed="$seeds" --param straggler-rate="$rates" \
		--straggler-slowdown "$slowdown" --mix mix2 --duration 2 --warmup 0.5 \
		--schedulers fair,sw-fair,delay,sw-relaxed --jobs "${JOBS:-1}" --quiet --no-plot \
		--out "$out/sweep" >/dev/null
fi

# sweep.csv: seed, straggler-rate, then results.csv's columns; rows of class "all".
awk -F, -v slowdown="$slowdown" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
$col["class"] == "all" {
	key = $col["scheduler"] SUBSEP $col["straggler-rate"] SUBSEP $col["seed"]
	mean[key] = $col["turnaround_mean_s"]; p99[key] = $col["turnaround_p99_s"]
	xr[key] = $col["xrack_total_bytes"]; vs[key] = $col["turnaround_vs_baseline"]
	if (!($col["scheduler"] in seen_s)) { seen_s[$col["scheduler"]] = 1; scheds[++ns] = $col["scheduler"] }
	if (!($col["straggler-rate"] in seen_r)) { seen_r[$col["straggler-rate"]] = 1; rates[++nr] = $col["straggler-rate"] }
	if (!($col["seed"] in seen_k)) { seen_k[$col["seed"]] = 1; seeds[++nk] = $col["seed"] }
}
# median, min and max of v[1..n], as "med (min-max)"
function stats(v, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return sprintf("%.3f (%.3f-%.3f)", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n])
}
END {
	printf "mix2, 2 h of arrivals, %d seeds, stragglers %sx slower; median (range) over seeds\n", nk, slowdown
	printf "%-11s %5s  %-22s %-22s %-22s %-22s %-22s %-22s\n", "scheduler", "rate", "mean turnaround / none", \
		"p99 / none", "cross-rack / none", "turnaround vs fair", "vs fair, none", "vs fair, with / none"
	for (s = 1; s <= ns; s++) for (r = 2; r <= nr; r++) {
		for (k = 1; k <= nk; k++) {
			a = scheds[s] SUBSEP rates[r] SUBSEP seeds[k]; b = scheds[s] SUBSEP rates[1] SUBSEP seeds[k]
			m[k] = mean[a] / mean[b]; p[k] = p99[a] / p99[b]; x[k] = xr[a] / xr[b]; v[k] = vs[a]; w[k] = vs[b]
			d[k] = vs[a] / vs[b]
		}
		printf "%-11s %5s  %-22s %-22s %-22s %-22s %-22s %-22s\n", scheds[s], rates[r], stats(m, nk), \
			stats(p, nk), stats(x, nk), stats(v, nk), stats(w, nk), stats(d, nk)
	}
}' "$out/sweep/sweep.csv" | tee "$out/summary.txt"
