#!/bin/sh
# Fuzzes the shuffle frame parser with libFuzzer for a short pass (default 30 s; first
# argument overrides). Builds with clang directly so that the meson build may use any
# compiler. Seeds are valid frames written by the codec itself, so the fuzzer starts from
# inside the format rather than guessing the magic numbers. Exits non-zero on any crash,
# sanitizer report or leak.
set -eu
secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
deps=$(pkg-config --cflags --libs libisal liblz4 libzstd libcrypto)
srcs="$root/shuffle/proto.c $root/shuffle/pack.c $root/shuffle/auth.c"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -I"$root/shuffle" \
	"$root/tests/shuffle/fuzz_frames.c" $srcs $deps -o "$work/fuzz_frames"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -I"$root/shuffle" "$root/tests/shuffle/fuzz_seeds.c" $srcs \
	$deps -o "$work/fuzz_seeds"
mkdir "$work/corpus"
"$work/fuzz_seeds" "$work/corpus"
cd "$work"
if ./fuzz_frames -max_total_time="$secs" -max_len=4096 -print_final_stats=1 corpus >log 2>&1; then
	grep -E '^(Done|stat::(number_of_executed_units|new_units_added))' log
	echo "fuzz_frames: no crash in ${secs} s"
else
	cat log
	echo "fuzz_frames: FAILED (crash input above)" >&2
	exit 1
fi
