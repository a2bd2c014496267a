#!/bin/sh
# Fuzzes every wire-message decoder with libFuzzer, one binary per message type, for a short
# pass each (default 3 s; first argument overrides). The corpus is the checked-in
# tests/wire/corpus/NAME/ (units earlier runs found) plus the samples of samples.c, copied so
# that a run never changes the tree; `fuzz.sh SECS --update` merges new units back into the
# checked-in corpus. Builds with clang directly so that the meson build may use any compiler.
# Exits non-zero on any crash, sanitizer report or leak.
set -eu
secs=${1:-3}
update=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-wire-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
deps=$(pkg-config --cflags --libs libprotobuf-c libcrypto)
protoc-c --proto_path="$root/agent/wire" --c_out="$work" "$root/agent/wire/shufflewatch.proto"
srcs="$work/shufflewatch.pb-c.c $root/agent/wire/wire.c $root/agent/wire/handshake.c"
incs="-I$work -I$root/agent/wire -I$root/agent/wire/include -I$root/dataplane/include"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE $incs "$root/tests/wire/fuzz_seeds.c" \
	"$root/tests/wire/samples.c" $srcs $deps -o "$work/fuzz_seeds"
mkdir "$work/corpus"
"$work/fuzz_seeds" "$work/corpus" >"$work/types"
status=0
while read -r type name; do
	# shellcheck disable=SC2086
	clang -std=gnu11 -D_GNU_SOURCE -DFUZZ_TYPE="$type" -g -O1 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $incs \
		"$root/tests/wire/fuzz_wire.c" $srcs $deps -o "$work/fuzz_$name"
	kept="$root/tests/wire/corpus/$name"
	[ -d "$kept" ] && cp "$kept"/* "$work/corpus/$name/" 2>/dev/null || true
	if (cd "$work" && "./fuzz_$name" -max_total_time="$secs" -max_len=65536 \
		-print_final_stats=1 "corpus/$name" >"log_$name" 2>&1); then
		units=$(awk '/^stat::number_of_executed_units/ {print $2}' "$work/log_$name")
		echo "fuzz_wire $name: no crash in ${secs} s ($units runs)"
		if [ "$update" = --update ]; then
			mkdir -p "$kept"
			"$work/fuzz_$name" -merge=1 "$kept" "$work/corpus/$name" >/dev/null 2>&1
		fi
	else
		cat "$work/log_$name"
		echo "fuzz_wire $name: FAILED (crash input above)" >&2
		status=1
	fi
done <"$work/types"
exit $status
