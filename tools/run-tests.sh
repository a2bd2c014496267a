#!/bin/sh
# Builds shufflewatch twice (warnings as errors; then AddressSanitizer + UBSan), runs the whole
# test suite in each build, short fuzzing passes and the scheduler benchmark, and ends with one
# line "N passed, N failed" over both builds. Needs the packages of tools/setup-deps.sh.
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0

# Configures, builds and tests one build directory; adds its counts to passed/failed.
run_suite() {
	dir=$1
	shift
	if ! { meson setup "$dir" --wipe -Dwerror=true "$@" >/dev/null 2>&1 ||
		meson setup "$dir" -Dwerror=true "$@"; } || ! meson compile -C "$dir"; then
		echo "run-tests: $dir does not build" >&2
		failed=$((failed + 1))
		return
	fi
	meson test -C "$dir" -v --print-errorlogs --num-processes 2 | tee "$dir/test-output.txt"
	ok=$(awk '/^Ok:/ {print $2}' "$dir/test-output.txt")
	bad=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$dir/test-output.txt")
	passed=$((passed + ${ok:-0}))
	failed=$((failed + bad))
	[ -n "$ok" ] || failed=$((failed + 1))
}

run_suite build-test
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	run_suite build-asan -Db_sanitize=address,undefined -Dc_args=-fno-sanitize-recover=all \
	-Dcpp_args=-fno-sanitize-recover=all -Dbenchmarks=false
# A short libFuzzer pass over every decoder of network bytes (30 s per target).
if tests/shuffle/fuzz.sh 30; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# A short libFuzzer pass over the agent's replica put and ACK decoders.
if tests/agent/fuzz.sh 10; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# And over netsat/'s decoders: tracker reports and netlink replies.
if tests/netsat/fuzz.sh 20; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# And over the dpdk backend's frame decoder.
if tests/dataplane/fuzz.sh 20; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# A short libFuzzer pass over every wire-message decoder (3 s each).
if tests/wire/fuzz.sh 3; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# And over the controller's job spec (POST /jobs).
if tests/controller/fuzz.sh 10; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
# The scheduler benchmark: prints decision latency against its target (not a pass/fail timing).
if perf/bench-sched.sh build-test; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
