#!/bin/sh
# The ShuffleWatcher paper's ratios over seeds: for every run of an experiment that sweeps
# `seed` (a run's sweep.csv with a seed column; a second swept option gives one row per value),
# each pair the paper compares (SW-fair / Fair, SW-relaxed / Delay, SW-DRF / DRF; Delay / Fair
# and NASS alone and with SARP / Fair as well) on all jobs: jobs/h, work/h, mean turnaround,
# cross-rack bytes and shuffle + remote map input, each as "median (lowest-highest) k/n", k the
# seeds whose ratio is below 1, each ratio taken seed by seed; under it, the paper's figure for
# the same run, pair and metric, from the experiment file's "paper" entries. Markdown on stdout.
# A replay's turnaround ratio moves by up to 0.11 from event order alone (perf/README.md, "The
# network quantum on the paper's experiments"), so one seed is not a result.
# usage: perf/seed-ratios.sh [EXPERIMENT.json [DIR]]   (defaults: shufflewatch-faithful's)
# env: CLASS (default all; or light, medium, heavy: that class's jobs, and the paper's entries
#      for it)
set -eu
cd "$(dirname "$0")/.."
file=${1:-perf/experiments/shufflewatch-faithful.json}
dir=${2:-perf/results/shufflewatch-faithful}
[ -r "$file" ] || { echo "$0: $file: cannot read" >&2; exit 1; }
[ -d "$dir" ] || { echo "$0: $dir: not a directory" >&2; exit 1; }
class=${CLASS:-all}
case $class in all | light | medium | heavy) ;; *) echo "$0: CLASS=$class: expected all, light, medium or heavy" >&2; exit 2 ;; esac

# "run;point;scheduler;baseline;metric;value" per paper entry on the class; point is the
# non-seed swept option as sweep.csv's column would say it ("compute-scale=0.5"), or "".
paper=$(jq -r --arg class "$class" '
	.defaults as $d | .runs[] | .name as $run
	| ((.options.baseline // $d.baseline // ((.options.schedulers // $d.schedulers) | split(",")[0]))) as $base
	| (.paper // [])[] | select((.class // "all") == $class)
	| [$run, ((.at // {}) | to_entries | map(select(.key != "seed") | "\(.key)=\(.value)") | join(",")),
	   .scheduler, (.baseline // $base), .metric, (.value | tostring)] | join(";")' "$file")

echo "| run | point | ratio | jobs/h | work/h | turnaround | cross-rack | shuffle + remote input |"
echo "|---|---|---|---|---|---|---|---|"
for run in $(jq -r '.runs[].name' "$file"); do
	csv=$dir/$run/sweep.csv
	[ -r "$csv" ] && head -1 "$csv" | tr ',' '\n' | grep -qx seed || continue
	printf '%s\n' "$paper" | awk -F';' -v run="$run" '$1 == run' | awk -v run="$run" -v class="$class" '
	# the paper entries first (FILENAME "-"), then sweep.csv
	FILENAME == "-" {
		split($0, f, ";")
		name["throughput"] = 1; name["work_throughput"] = 2; name["turnaround"] = 3
		name["xrack"] = 4; name["xrack_paper"] = 5
		if (f[5] in name)
			fig[f[2] SUBSEP f[3] "/" f[4] SUBSEP name[f[5]]] = f[6]
		next
	}
	FNR == 1 {
		FS = ","; $0 = $0
		for (i = 1; i <= NF; i++) col[$i] = i
		for (i = 1; i < col["scheduler"]; i++) if ($i != "seed") other = $i
		next
	}
	$col["class"] == class {
		pt = other == "" ? "" : other "=" $col[other]
		if (!(pt in seen_p)) { seen_p[pt] = 1; points[++np] = pt }
		if (!($col["seed"] in seen_k)) { seen_k[$col["seed"]] = 1; seeds[++nk] = $col["seed"] }
		k = pt SUBSEP $col["seed"] SUBSEP $col["scheduler"]
		v[k, 1] = $col["jobs_per_hour"]; v[k, 2] = $col["work_task_h_per_hour"]
		v[k, 3] = $col["turnaround_mean_s"]; v[k, 4] = $col["xrack_total_bytes"]
		v[k, 5] = $col["xrack_paper_bytes"]; have[pt, $col["scheduler"]] = 1
	}
	# "median (lowest-highest) k/n" of r[1..n], k of them below 1
	function stats(r, n,   i, j, t, below) {
		for (i = 1; i <= n; i++) below += r[i] < 1
		for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
		return sprintf("%.3f (%.3f-%.3f) %d/%d", n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2, r[1], r[n], below, n)
	}
	END {
		np_ = split("sw-fair/fair sw-relaxed/delay sw-drf/drf delay/fair sw-nass/fair sw-nass-sarp/fair", pairs, " ")
		split("SW-fair / Fair,SW-relaxed / Delay,SW-DRF / DRF,Delay / Fair,NASS / Fair,NASS+SARP / Fair", label, ",")
		for (p = 1; p <= np; p++) for (q = 1; q <= np_; q++) {
			split(pairs[q], ab, "/")
			if (!((points[p], ab[1]) in have) || !((points[p], ab[2]) in have))
				continue
			row = sprintf("| %s | %s | %s |", run, points[p], label[q]); figs = ""
			for (m = 1; m <= 5; m++) {
				for (s = 1; s <= nk; s++)
					r[s] = v[points[p] SUBSEP seeds[s] SUBSEP ab[1], m] / v[points[p] SUBSEP seeds[s] SUBSEP ab[2], m]
				row = row " " stats(r, nk) " |"
				key = points[p] SUBSEP pairs[q] SUBSEP m
				figs = figs " " (key in fig ? fig[key] : "") " |"
			}
			print row
			if (figs ~ /[0-9]/)
				printf "| | | paper |%s\n", figs
		}
	}' - "$csv"
done
