#!/bin/sh
# The thesis' workflow figures (Figs. 4.9-4.10) from `swctl experiment
# perf/experiments/workflows.json --out DIR`: for each run (a folder of DIR with a jobs.csv) and
# workflow, its completion time over its deadline (both from its first submission) and the
# map + reduce slots of its basic and its refined (Algorithm 2) pair. Writes DIR/workflows.csv
# and, with gnuplot, DIR/workflows.png; prints the CSV. Usage: perf/workflow-report.sh DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 EXPERIMENT_OUT_DIR" >&2; exit 2; }
dir=$1
csv=$dir/workflows.csv
runs=$(cd "$dir" && for d in */; do [ -r "$d/jobs.csv" ] && printf '%s ' "${d%/}"; done || true)
[ -n "$runs" ] || { echo "$0: $dir: no run folder with a jobs.csv" >&2; exit 1; }
{
	echo "run,workflow,jobs,start_s,finish_s,deadline_s,time_over_deadline,basic_map,basic_reduce,refined_map,refined_reduce,refined_fewer_slots"
	for run in $runs; do
		awk -F, -v run="$run" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["workflow"] >= 0 {
			k = $col["workflow"]
			if (!(k in n)) { order[++nk] = k; start[k] = $col["submitted_s"]; end[k] = 0 }
			n[k]++
			if ($col["submitted_s"] < start[k]) start[k] = $col["submitted_s"]
			if ($col["finish_s"] > end[k]) end[k] = $col["finish_s"]
			dl[k] = $col["deadline_s"]
			bm[k] = $col["wf_basic_map_slots"]; br[k] = $col["wf_basic_reduce_slots"]
			rm[k] = $col["wf_refined_map_slots"]; rr[k] = $col["wf_refined_reduce_slots"]
		}
		END {
			for (i = 1; i <= nk; i++) {
				k = order[i]
				printf "%s,%s,%d,%.3f,%.3f,%.3f,%.4f,%d,%d,%d,%d,%.4f\n", run, k, n[k],
				       start[k], end[k], dl[k], (end[k] - start[k]) / (dl[k] - start[k]),
				       bm[k], br[k], rm[k], rr[k], 1 - (rm[k] + rr[k]) / (bm[k] + br[k])
			}
		}' "$dir/$run/jobs.csv"
	done
} >"$csv"
cat "$csv"
command -v gnuplot >/dev/null || { echo "$0: no gnuplot: $dir/workflows.png not drawn" >&2; exit 0; }
# One column per run, in the CSV's order: time over deadline by workflow; then the slots of
# each pair as the 'refined' run (1 Gbit/s) computed them.
awk -F, 'NR > 1 {
	if (!($1 in seen)) { seen[$1]; runs[++nr] = $1 }
	t[$2, $1] = $7; wf[$2]
	if ($1 == "refined") { s[$2] = $8 + $9; r[$2] = $10 + $11 }
}
END {
	printf "workflow"; for (i = 1; i <= nr; i++) printf " %s", runs[i]; print " basic refined"
	for (w = 0; (w "") in wf; w++) {
		printf "%d", w; for (i = 1; i <= nr; i++) printf " %s", t[w, runs[i]]
		printf " %d %d\n", s[w], r[w]
	}
}' "$csv" >"$dir/workflows.dat"
n=$(head -1 "$dir/workflows.dat" | wc -w)
gnuplot <<GP
set terminal pngcairo size 1100,450 noenhanced
set output '$dir/workflows.png'
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set xlabel 'workflow (0 Q5, 1 Q8, 2 Q10, 3 Proxy Q1, 4 Proxy Q2, 5 Proxy Q3)'
set ylabel 'completion time / deadline'
set yrange [0:1.8]
set title 'Completion time over the deadline (D = 2T)'
plot for [c=2:$((n - 2))] '$dir/workflows.dat' using c:xtic(1) title columnheader, 1 with lines lt -1 notitle
set ylabel 'map + reduce slots'
set yrange [0:*]
set title 'Slots of the basic and the refined (Algorithm 2) pair (run refined)'
plot for [c=$((n - 1)):$n] '$dir/workflows.dat' using c:xtic(1) title columnheader
unset multiplot
GP
rm -f "$dir/workflows.dat"
