#!/bin/sh
# Fuzzes netsat/'s decoders (tracker reports, netlink replies of the link and qdisc sources;
# see fuzz_netsat.c) with libFuzzer for a short pass (default 30 s; first argument
# overrides). Builds with clang directly, like tests/shuffle/fuzz.sh. Exits non-zero on any
# crash, broken invariant, sanitizer report or leak.
set -eu
secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-fuzz-netsat-XXXXXX)
trap 'rm -rf "$work"' EXIT
srcs="$root/netsat/uplink.c $root/netsat/source.c $root/netsat/nl.c $root/netsat/source_link.c
	$root/netsat/source_qdisc.c $root/netsat/source_rdma.c"
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -I"$root/netsat" -I"$root/netsat/include" \
	"$root/tests/netsat/fuzz_netsat.c" $srcs $(pkg-config --cflags --libs libmnl) \
	-o "$work/fuzz_netsat"
mkdir "$work/corpus"
cd "$work"
if ./fuzz_netsat -max_total_time="$secs" -max_len=4096 -print_final_stats=1 corpus >log 2>&1; then
	grep -E '^(Done|stat::(number_of_executed_units|new_units_added))' log
	echo "fuzz_netsat: no crash in ${secs} s"
else
	cat log
	echo "fuzz_netsat: FAILED (crash input above)" >&2
	exit 1
fi
