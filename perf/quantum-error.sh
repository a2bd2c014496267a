#!/bin/sh
# An approximate network's error (the network quantum's, --net-quantum, or the rack network
# model's, --net-model rack) on an experiment's ratios: for every results.csv of EXACT (a run's
# or a sweep point's) that each other directory also has, the ratios the ShuffleWatcher paper
# reports (SW-fair / Fair, SW-relaxed / Delay, SW-DRF / DRF, Delay / Fair; jobs/h, work/h, mean
# turnaround, cross-rack bytes, shuffle + remote map input), all jobs, as a Markdown table: the
# exact run's ratio, each other directory's, and each one's difference from the exact (runs
# that none of the other directories holds, or EXACT lacks, are left out). A single replay
# RUN/results.csv of the others is set against EXACT's RUN/seed=1/results.csv when EXACT made
# RUN as a seed sweep.
# Usage: perf/quantum-error.sh EXACT_DIR DIR... (swctl experiment --out directories, e.g.
# perf/results/shufflewatch-faithful perf/results/shufflewatch-faithful-q/q0.1
# perf/results/shufflewatch-faithful-q/rack)
set -eu
[ $# -ge 2 ] || { echo "usage: $0 EXACT_DIR DIR..." >&2; exit 2; }
exact=$1
shift
for d in "$exact" "$@"; do
	[ -d "$d" ] || { echo "$0: $d: not a directory" >&2; exit 1; }
done
[ -n "$(find "$exact" -name results.csv)" ] || { echo "$0: $exact: no results.csv" >&2; exit 1; }
# every results.csv path of any directory, in order
files=$(for d in "$exact" "$@"; do (cd "$d" && find . -name results.csv); done | sed 's|^\./||' | sort -u)

# exact_of FILE: EXACT's results.csv for FILE: the same path, or for a single replay
# (RUN/results.csv) the seed=1 point of the same run made as a seed sweep, which is that
# replay byte for byte (the faithful runs that sweep seed wrote RUN/ before they did)
exact_of() {
	if [ -r "$exact/$1" ]; then
		echo "$exact/$1"
	elif [ "$(dirname "$1")" != . ] && [ -r "$exact/$(dirname "$1")/seed=1/results.csv" ]; then
		echo "$exact/$(dirname "$1")/seed=1/results.csv"
	fi
}

# ratios FILE: "pair metric ratio" for each pair whose two schedulers FILE has
ratios() {
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["class"] == "all" {
		s = $col["scheduler"]
		v[s, "jobs/h"] = $col["jobs_per_hour"]
		v[s, "work/h"] = $col["work_task_h_per_hour"]
		v[s, "turnaround"] = $col["turnaround_mean_s"]
		v[s, "xrack"] = $col["xrack_total_bytes"]
		v[s, "paper xrack"] = $col["xrack_paper_bytes"]
		have[s] = 1
	}
	END {
		np = split("sw-fair/fair sw-relaxed/delay sw-drf/drf delay/fair", pairs, " ")
		nm = split("jobs/h,work/h,turnaround,xrack,paper xrack", metrics, ",")
		for (p = 1; p <= np; p++) {
			split(pairs[p], ab, "/")
			if (!(ab[1] in have) || !(ab[2] in have))
				continue
			for (m = 1; m <= nm; m++) {
				b = v[ab[2], metrics[m]]
				printf "%s;%s;%s\n", pairs[p], metrics[m], (b > 0 ? v[ab[1], metrics[m]] / b : "nan")
			}
		}
	}' "$1"
}

printf '| run | ratio | metric | exact |'
for d in "$@"; do printf ' %s | - exact |' "$(basename "$d")"; done
printf '\n|---|---|---|---|'
for d in "$@"; do printf -- '---|---|'; done
printf '\n'
for f in $files; do
	run=$(dirname "$f")
	ex=$(exact_of "$f")
	[ -n "$ex" ] || continue # a run the exact directory lacks
	found=0
	for d in "$@"; do [ -r "$d/$f" ] && found=1; done
	[ $found -eq 1 ] || continue # a run none of the others made
	ratios "$ex" > "${TMPDIR:-/tmp}/quantum-error.$$"
	for d in "$@"; do
		if [ -r "$d/$f" ]; then ratios "$d/$f"; else echo "missing"; fi > "${TMPDIR:-/tmp}/quantum-error.$$.$(basename "$d")"
	done
	# one row per line of the exact run's ratios, the others' beside it
	awk -F';' -v run="$run" -v others="$*" -v tmp="${TMPDIR:-/tmp}/quantum-error.$$" '
	BEGIN { n = split(others, dirs, " ") }
	{
		row = sprintf("| %s | %s | %s | %.3f |", run, $1, $2, $3)
		for (i = 1; i <= n; i++) {
			k = dirs[i]; sub(".*/", "", k)
			line = ""
			if ((getline line < (tmp "." k)) <= 0 || line == "missing") {
				row = row " | |"
				continue
			}
			split(line, o, ";")
			row = row sprintf(" %.3f | %+.3f |", o[3], o[3] - $3)
		}
		print row
	}' "${TMPDIR:-/tmp}/quantum-error.$$"
	rm -f "${TMPDIR:-/tmp}/quantum-error.$$" "${TMPDIR:-/tmp}/quantum-error.$$".*
done
