#!/bin/sh
# Fuzzes the dpdk backend's frame decoder with libFuzzer for a short pass (default 30 s; the
# first argument overrides). Builds with clang directly, like tests/shuffle/fuzz.sh. Starts
# from frames written by the encoder (tests/dataplane/fuzz-corpus-dpdk). Exits non-zero on a
# crash, sanitizer report or leak; skips (exit 0) when libdpdk is not installed.
set -eu
secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! pkg-config --exists libdpdk; then
	echo "fuzz_dpdk: libdpdk not installed, skipped"
	exit 0
fi
work=$(mktemp -d /tmp/sw-fuzz-dpdk-XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046
clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$root/dataplane" $(pkg-config --cflags libdpdk) "$root/tests/dataplane/fuzz_dpdk.c" \
	"$root/dataplane/dpdk_frame.c" -o "$work/fuzz_dpdk"
mkdir "$work/corpus"
cp "$root"/tests/dataplane/fuzz-corpus-dpdk/* "$work/corpus/"
cd "$work"
if ./fuzz_dpdk -max_total_time="$secs" -max_len=2048 -print_final_stats=1 corpus >fuzz.log 2>&1; then
	grep -E '^(Done|stat::(number_of_executed_units|new_units_added))' fuzz.log
	echo "fuzz_dpdk: no crash in ${secs} s"
else
	cat fuzz.log
	echo "fuzz_dpdk: FAILED (crash input above)" >&2
	exit 1
fi
