#!/bin/sh
# NetSat-driven pacing on emulated racks: work run under ShuffleWatcher (sw-fair) alone and
# under sw-fair with the controller's pacing (swctl cluster up --pace), over the dpdk
# transport, RUNS times each, interleaved. The work is a mix replayed live (MIX=FILE), or
# with MIX=shuffle JOBS jobs submitted 2 s apart, each 8 maps of 12 MB and 4 reduces with no
# output replicas, so that only the shuffle (which pacing caps) crosses the uplinks (a live
# replay's reduces also put replicas over tcp, unpaced). While the work runs, swctl netsat-watch
# samples every rack uplink's tbf qdisc both ways (the ToR's uplink: what the rack sends; the
# spine's rackR: what it receives) every 0.5 s. Prints, per mode, the medians over runs of:
# mean job turnaround and the makespan (jobs.csv), the uplink queues' mean and largest backlog
# and their drops (all uplinks, both ways), and paced/alone; writes OUT/MODE-N/ (the replay's
# tables, the qdisc samples) and OUT/summary.txt.
# usage (root): perf/bench-pace.sh [BUILD_DIR]     (default build)
# env: RUNS (3), PACE (0.9), MIX (shuffle, or a mix file), JOBS (6), RACKS x NODES (2 x 2),
#      UPLINK (100mbit), OUT (perf/results/pace/MIX), NAME (the clusters' namespace prefix,
#      pc and 6 random hex digits)
set -eu
build=${1:-build}
runs=${RUNS:-3} pace=${PACE:-0.9} racks=${RACKS:-2} nodes=${NODES:-2} uplink=${UPLINK:-100mbit}
mix=${MIX:-shuffle} jobs=${JOBS:-6}
[ "$mix" = shuffle ] || mix=$(realpath "$mix")
out=${OUT:-perf/results/pace/$(basename "$mix" .jsonl)}
swctl=$(realpath "$build/tools/swctl/swctl")
name=${NAME:-pc$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')}
tmp=$(mktemp -d /tmp/sw-pace-bench-XXXXXX)
watchers=''
cleanup() {
	for p in $watchers; do kill "$p" 2>/dev/null || true; done
	for m in a p; do "$swctl" cluster down --name "$name$m" --dir "$tmp/$m" >/dev/null 2>&1; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$out"
up() { # SUFFIX [OPTIONS]: a cluster of its own per mode, kept for every run
	m=$1
	shift
	"$swctl" cluster up --racks "$racks" --nodes-per-rack "$nodes" --nic 1gbit \
		--uplink "$uplink" --transport dpdk --name "$name$m" --dir "$tmp/$m" "$@" \
		>"$out/cluster-$m.txt"
}
up a
up p --pace "$pace"

# shuffle_jobs SUFFIX RUN DIR: JOBS jobs 2 s apart on cluster NAME+SUFFIX, until all ended;
# DIR/jobs.txt gets "NAME SECONDS STATE" per job, DIR/makespan the seconds from the first
# submission to the last end
shuffle_jobs() {
	ctl() {
		ns=$name$1-spine
		shift
		ip netns exec "$ns" "$swctl" "$@" --controller 10.255.255.1:7080
	}
	s=$1
	t0=$(date +%s.%N)
	k=1
	while [ $k -le "$jobs" ]; do
		ctl "$s" submit --name "r$2j$k" --maps 8 --reduces 4 --input-bytes 12000000 \
			--rate 1e9 --replicas 0 >/dev/null || return 1
		[ $k = "$jobs" ] || sleep 2
		k=$((k + 1))
	done
	until ctl "$s" jobs | awk -v r="r$2j" 'index($2, r) == 1 && $4 != "running" {n++}
		END {exit n != '"$jobs"'}'; do sleep 0.2; done
	echo "$(date +%s.%N) - $t0" | bc >"$3/makespan"
	ctl "$s" jobs | awk -v r="r$2j" 'index($2, r) == 1 {print $2, $7, $4}' >"$3/jobs.txt"
}

replay() { # MODE SUFFIX RUN
	d=$out/$1-$3
	rm -rf "$d"
	mkdir -p "$d"
	watchers=''
	r=0
	while [ $r -lt "$racks" ]; do
		"$swctl" netsat-watch --netns "$name$2-tor$r" --dev uplink --interval 0.5 \
			>"$d/qdisc-out-rack$r.txt" &
		watchers="$watchers $!"
		"$swctl" netsat-watch --netns "$name$2-spine" --dev "rack$r" --interval 0.5 \
			>"$d/qdisc-in-rack$r.txt" &
		watchers="$watchers $!"
		r=$((r + 1))
	done
	uptime >"$d/load.txt"
	rc=0
	if [ "$mix" = shuffle ]; then
		shuffle_jobs "$2" "$3" "$d" || rc=$?
	else
		"$swctl" replay --live "$tmp/$2" --mix "$mix" --schedulers sw-fair \
			--baseline sw-fair --warmup 0 --no-plot --quiet --out "$d/replay" \
			>"$d/replay.txt" 2>"$d/replay.err" || rc=$?
	fi
	uptime >>"$d/load.txt"
	for p in $watchers; do kill "$p"; done
	wait
	watchers=''
	[ $rc = 0 ] || { tail -5 "$d/replay.err"; exit 1; }
	# one line: turnaround mean, makespan, failed jobs, backlog mean and max (bytes), drops
	{
		if [ "$mix" = shuffle ]; then
			awk '{n++; t += $2; f += $3 != "done"} END {printf "%.2f ", t / n}
				END {printf "%.2f %d ", m, f}' m="$(cat "$d/makespan")" "$d/jobs.txt"
		else
			awk -F, 'NR > 1 {n++; t += $8; if ($7 > m) m = $7; f += $21}
				END {printf "%.2f %.2f %d ", t / n, m, f}' "$d/replay/jobs.csv"
		fi
		cat "$d"/qdisc-*.txt | awk '$1 ~ /^[0-9.]+$/ && NF == 7 {
			n++; b += $4; if ($4 > m) m = $4; dr += $7 }
			END {printf "%.0f %.0f %d\n", b / n, m, dr}'
	} >"$d/summary.line"
	echo "$1 run $3: $(cat "$d/summary.line")  (turnaround makespan failed backlog-mean backlog-max drops)"
}
i=1
while [ "$i" -le "$runs" ]; do
	replay alone a "$i"
	replay paced p "$i"
	i=$((i + 1))
done

# medians over runs, per mode, and paced / alone
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
{
	what=$mix
	[ "$mix" = shuffle ] && what="$jobs shuffle-only jobs (8 x 12 MB maps, 4 reduces) 2 s apart"
	echo "NetSat-driven pacing: $what on $racks x $nodes racks, uplinks $uplink, dpdk, sw-fair,"
	echo "pace $pace; medians of $runs runs ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	printf '%-28s %12s %12s %8s\n' "" alone paced paced/alone
	col=1
	for what in "turnaround mean (s)" "makespan (s)" "jobs failed" "uplink backlog mean (bytes)" \
		"uplink backlog max (bytes)" "uplink drops"; do
		a=$(cat "$out"/alone-*/summary.line | cut -d' ' -f$col | median)
		p=$(cat "$out"/paced-*/summary.line | cut -d' ' -f$col | median)
		printf '%-28s %12s %12s %8s\n' "$what" "$a" "$p" \
			"$(awk -v a="$a" -v p="$p" 'BEGIN {if (a > 0) printf "%.2f", p / a; else print "-"}')"
		col=$((col + 1))
	done
} | tee "$out/summary.txt"
