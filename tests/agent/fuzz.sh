#!/bin/sh
# Fuzzes the replica frame decoders (agent/replica_frame.c) with libFuzzer for a short pass
# (default 10 s; first argument overrides), from seeds of valid frames written by the codec
# itself. Builds with clang directly so that the meson build may use any compiler. Exits
# non-zero on any crash, sanitizer report or leak.
set -eu
secs=${1:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-agent-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
deps=$(pkg-config --cflags --libs libcrypto)
src="$root/tests/agent/fuzz_replica.c $root/agent/replica_frame.c"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -I"$root/agent" $src $deps -o "$work/fuzz_replica"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -DFUZZ_SEEDS -I"$root/agent" $src $deps -o "$work/seeds"
mkdir "$work/corpus"
"$work/seeds" "$work/corpus"
cd "$work"
if ./fuzz_replica -max_total_time="$secs" -max_len=4096 -print_final_stats=1 corpus >log 2>&1
then
	units=$(awk '/^stat::number_of_executed_units/ {print $2}' log)
	echo "fuzz_replica: no crash in ${secs} s ($units runs)"
else
	cat log
	echo "fuzz_replica: FAILED (crash input above)" >&2
	exit 1
fi
