#!/bin/sh
# Fuzzes the controller's decoder of network bytes that is its own (POST /jobs' job spec,
# controller/job_spec.c; libmicrohttpd parses the HTTP around it, and the agents' messages are
# tests/wire/fuzz.sh's) with libFuzzer, ASan and UBSan, for SECS seconds (default 10). The
# corpus is the checked-in tests/controller/corpus/job/, copied so that a run never changes
# the tree; `fuzz.sh SECS --update` merges new units back into it. Builds with clang directly
# so that the meson build may use any compiler. Exits non-zero on any crash, sanitizer report
# or leak.
set -eu
secs=${1:-10}
update=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-ctl-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
# ctl.h's headers: the wire messages' generated one among them
protoc-c --proto_path="$root/agent/wire" --c_out="$work" "$root/agent/wire/shufflewatch.proto"
incs="-I$work -I$root/controller -I$root/controller/include -I$root/agent/wire/include
	-I$root/dataplane/include -I$root/scheduler/include -I$root/netsat/include"
deps=$(pkg-config --cflags --libs libprotobuf-c jansson)
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $incs "$root/tests/controller/fuzz_job.c" \
	"$root/controller/job_spec.c" "$root/controller/errf.c" $deps -o "$work/fuzz_job"
kept="$root/tests/controller/corpus/job"
mkdir "$work/corpus"
cp "$kept"/* "$work/corpus/"
if (cd "$work" && ./fuzz_job -max_total_time="$secs" -max_len=65536 -print_final_stats=1 \
	corpus >log 2>&1); then
	units=$(awk '/^stat::number_of_executed_units/ {print $2}' "$work/log")
	echo "fuzz_job: no crash in ${secs} s ($units runs)"
	[ "$update" != --update ] || "$work/fuzz_job" -merge=1 "$kept" "$work/corpus" >/dev/null 2>&1
else
	cat "$work/log"
	echo "fuzz_job: FAILED (crash input above)" >&2
	exit 1
fi
