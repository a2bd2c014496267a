#!/bin/sh
# Polo's chapter 3 experiment 1 with staggered submissions (issue 12, claim C3). The thesis
# submits J1-J5 at times S1-S5 that it draws on Figs. 3.4-3.6 but never gives as numbers, so
# this replays the committed mixes (perf/mixes/polo-ch3-relaxed.jsonl, -tight.jsonl: all at 0)
# over a grid of order-preserving schedules, each job's goal kept as the same duration from
# its own submission (Table 5.8's times are from each job's submission). S1 = 0; S2, S3 - S2
# and S4 - S3 take 60, 300 or 600 s and S5 - S4 300, 600 or 1,200 s (Fig. 3.4's text submits
# J5 once J4 has finished under Adaptive, which the Join's 101 s alone allows). Writes
# OUT_DIR/arrivals.csv, one row per schedule, goal set, scheduler and job (turnaround over
# goal), and prints per goal set and scheduler the range over the schedules of each job's
# turnaround over its goal and of the goals met.
# SORT_REDUCES=N gives Sort (J3) N reducers instead of the mix's 60 (the thesis's count is
# not given; 60 fill every reduce slot from slow start to Sort's last map).
# Usage: [SORT_REDUCES=N] perf/polo-ch3-arrivals.sh OUT_DIR   (from the repository root)
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
out=$1
swctl=${SWCTL:-build/tools/swctl/swctl}
[ -x "$swctl" ] || { echo "$0: $swctl: not built (tools/build.sh)" >&2; exit 1; }
mkdir -p "$out"
csv=$out/arrivals.csv
echo "goals,s2,s3,s4,s5,scheduler,job,arrival_s,turnaround_s,goal_s,over_goal" >"$csv"
for goals in relaxed tight; do
	# Each job's goal: its deadline in the committed mix, where every job arrives at 0.
	goal_list=$(jq -r '.job | select(.) | .deadline' "perf/mixes/polo-ch3-$goals.jsonl" | tr '\n' ' ')
	for s2 in 60 300 600; do
		for g3 in 60 300 600; do
			for g4 in 60 300 600; do
				for g5 in 300 600 1200; do
					s3=$((s2 + g3)) s4=$((s2 + g3 + g4)) s5=$((s2 + g3 + g4 + g5))
					run=$out/$goals-$s2-$s3-$s4-$s5
					jq -c --argjson s "[0,$s2,$s3,$s4,$s5]" --argjson r "${SORT_REDUCES:-60}" \
						'if .job then .job.arrival = $s[.job.id - 1] | .job.deadline += $s[.job.id - 1]
						 | if .job.id == 3 then .job.reduces = $r else . end else . end' \
						"perf/mixes/polo-ch3-$goals.jsonl" >"$run.jsonl"
					"$swctl" replay --mix "$run.jsonl" --schedulers fair,delay,adaptive \
						--baseline fair --warmup 0 --seed 1 --out "$run" >"$run.log" 2>&1 ||
						{ echo "$0: replay failed, see $run.log" >&2; exit 1; }
					awk -F, -v pre="$goals,$s2,$s3,$s4,$s5" -v goals="$goal_list" '
					BEGIN { n = split(goals, g, " "); for (i = 1; i <= n; i++) goal[i] = g[i] }
					NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
					{
						j = $col["job"]; t = $col["turnaround_s"]
						printf "%s,%s,%s,%s,%s,%.1f,%.4f\n", pre, $col["scheduler"], j,
						       $col["arrival_s"], t, goal[j], t / goal[j]
					}' "$run/jobs.csv" >>"$csv"
				done
			done
		done
	done
done
# Per goal set and scheduler: each job's least and greatest turnaround over goal over the 81
# schedules, and the least and most goals met in one schedule.
awk -F, 'NR > 1 {
	k = $1 "," $6; key[k]; r = $11 + 0
	if (!((k, $7) in lo) || r < lo[k, $7]) lo[k, $7] = r
	if (!((k, $7) in hi) || r > hi[k, $7]) hi[k, $7] = r
	met[k, $2 "-" $3 "-" $4 "-" $5] += (r <= 1)
	sched[k, $2 "-" $3 "-" $4 "-" $5]
}
END {
	print "goals,scheduler,J1,J2,J3,J4,J5,goals_met"
	for (k in key) {
		line = k
		for (j = 1; j <= 5; j++) line = line sprintf(",%.2f-%.2f", lo[k, j], hi[k, j])
		mlo = 6; mhi = -1
		for (ks in sched) {
			split(ks, p, SUBSEP)
			if (p[1] != k) continue
			m = met[ks] + 0
			if (m < mlo) mlo = m
			if (m > mhi) mhi = m
		}
		print line "," mlo "-" mhi
	}
}' "$csv" | sort
