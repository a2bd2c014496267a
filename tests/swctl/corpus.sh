#!/bin/sh
# Replays every mix of corpus/ (absurd but well-formed: ids, sizes, times, rates at and beyond
# every documented bound) under a memory cap and a time limit. Each must end as corpus/expect
# says: refused with a message naming file, line and field (exit 1, nothing written), or
# replayed (exit 0, results written). Usage: corpus.sh SWCTL
set -u
swctl=$1
dir=$(cd "$(dirname "$0")/corpus" && pwd)
work=$(mktemp -d /tmp/sw-corpus-XXXXXX)
trap 'rm -rf "$work"' EXIT
# ASan reserves terabytes of address space, so it is capped by its own RSS limit instead.
if ldd "$swctl" | grep -q libasan; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024"
	export ASAN_OPTIONS
else
	ulimit -v 2097152
fi
failed=0
n=0
while read -r file want text; do
	case $file in '' | '#'*) continue ;; esac
	n=$((n + 1))
	out="$work/out-$file"
	timeout 60 "$swctl" replay --mix "$dir/$file" --schedulers fair,sw-fair --jobs 1 \
		--no-plot --quiet --out "$out" >"$work/log" 2>&1
	rc=$?
	why=
	if [ "$rc" != "$want" ]; then
		why="exit $rc, want $want"
	elif [ "$want" = 1 ] && ! grep -qF "$dir/$file$text" "$work/log"; then
		why="no '$file$text' in the output"
	elif [ "$want" = 1 ] && [ -e "$out" ]; then
		why="refused, yet wrote $out"
	elif [ "$want" = 0 ] && { ! grep -qF "$text" "$work/log" || [ ! -s "$out/results.csv" ]; }; then
		why="no results"
	fi
	if [ -n "$why" ]; then
		echo "corpus: $file: $why:" >&2
		cat "$work/log" >&2
		failed=$((failed + 1))
	else
		echo "corpus: $file: ok (exit $rc)"
	fi
done <"$dir/expect"
echo "corpus: $n mixes, $failed failed"
[ "$failed" -eq 0 ]
