#!/bin/sh
# Builds shufflewatch twice (warnings as errors; then AddressSanitizer + UBSan) and runs the
# whole test suite in each build. Needs the packages of tools/setup-deps.sh.
set -eu
cd "$(dirname "$0")/.."
run_suite() {
	dir=$1
	shift
	meson setup "$dir" --wipe -Dwerror=true "$@" >/dev/null 2>&1 || meson setup "$dir" -Dwerror=true "$@"
	meson compile -C "$dir"
	meson test -C "$dir" -v --print-errorlogs --num-processes 2
}
run_suite build-test
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	run_suite build-asan -Db_sanitize=address,undefined -Dc_args=-fno-sanitize-recover=all \
	-Dcpp_args=-fno-sanitize-recover=all -Dbenchmarks=false
tests/shuffle/fuzz.sh 30  # short libFuzzer pass over the shuffle frame parser
