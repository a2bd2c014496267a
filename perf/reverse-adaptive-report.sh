#!/bin/sh
# The thesis' Figs. 5.20-5.21 from `swctl experiment perf/experiments/reverse-adaptive.json
# --out DIR`: for each run (none, diurnal), load, deadline range and scheduler, the share of
# the window's jobs (arrived after the first day) that missed their deadline and the mean
# relative time beyond it of the late ones ((finish - deadline) / (finish - submission), the
# thesis's Table 5.7 measure). Writes DIR/missed.csv and, with gnuplot, DIR/missed.png (missed
# % against load, one panel per run and deadline range, one line per scheduler); prints the
# CSV. LOAD is 1 / time-scale for 'none' and 1 / (0.7 x time-scale) for 'diurnal' (its loads
# are against the 70% of the slots the transactional load leaves on average).
# Usage: perf/reverse-adaptive-report.sh DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 EXPERIMENT_OUT_DIR" >&2; exit 2; }
dir=$1
csv=$dir/missed.csv
{
	echo "run,load,deadline_factor,scheduler,jobs,missed,missed_pct,late_beyond_pct"
	for run in none diurnal; do
		[ -d "$dir/$run" ] || continue
		for point in "$dir/$run"/time-scale=*; do
			[ -r "$point/jobs.csv" ] || continue
			label=${point##*/}
			awk -F, -v run="$run" -v label="$label" '
			BEGIN {
				split(label, kv, ",")
				for (i in kv) { split(kv[i], p, "="); opt[p[1]] = p[2] }
				load = 1 / opt["time-scale"] / (run == "diurnal" ? 0.7 : 1)
			}
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			$col["arrival_s"] >= 86400 && $col["deadline_s"] > 0 {
				s = $col["scheduler"]
				if (!(s in n)) order[++ns] = s
				n[s]++
				if ($col["finish_s"] > $col["deadline_s"]) {
					late[s]++
					beyond[s] += ($col["finish_s"] - $col["deadline_s"]) / ($col["finish_s"] - $col["submitted_s"])
				}
			}
			END {
				for (i = 1; i <= ns; i++) {
					s = order[i]
					printf "%s,%.2f,%s,%s,%d,%d,%.1f,%.1f\n", run, load, opt["deadline-factor"], s, n[s], late[s], 100 * late[s] / n[s], late[s] ? 100 * beyond[s] / late[s] : 0
				}
			}' "$point/jobs.csv"
		done
	done
} | sort -t, -k1,1r -k3,3 -k2,2n > "$csv"
[ "$(wc -l <"$csv")" -gt 1 ] || { echo "$0: $dir: no sweep point with a jobs.csv" >&2; exit 1; }
cat "$csv"
command -v gnuplot >/dev/null || exit 0
plots=""
for run in none diurnal; do
	for f in 1.5:4 1.5:8 1.5:12; do
		grep -q "^$run,[^,]*,$f," "$csv" || continue
		plots="$plots $run:$f"
	done
done
{
	echo "set terminal pngcairo size 1500,800"
	echo "set output '$dir/missed.png'"
	echo "set datafile separator ','"
	echo "set multiplot layout 2,3"
	echo "set key top left"
	echo "set xlabel 'load'"
	echo "set ylabel 'missed deadlines (%)'"
	echo "set yrange [0:100]"
	for p in $plots; do
		run=${p%%:*}
		f=${p#*:}
		echo "set title '$run, deadline U($(echo "$f" | tr : ,))'"
		printf "plot"
		sep=""
		for s in fifo adaptive ras reverse-adaptive; do
			printf "%s '< grep \"^%s,[^,]*,%s,%s,\" %s' using 2:7 with linespoints title '%s'" \
				"$sep" "$run" "$f" "$s" "$csv" "$s"
			sep=","
		done
		echo
	done
	echo "unset multiplot"
} > "$dir/missed.gp"
gnuplot "$dir/missed.gp"
