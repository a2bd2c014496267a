#!/bin/sh
# Fuzzes every decoder of network bytes with libFuzzer for a short pass each (default 30 s;
# the first argument overrides): fuzz_frames (shuffle requests, answer headers and their
# tags, the hello, rkey descriptors, compressed payloads), fuzz_tcp (the tcp backend's
# frame headers, reassembly and credit grants, through a real socket) and fuzz_fetcher (the
# fetcher's answer handling as a whole, against a peer sending the input as answers; corpus
# in tests/shuffle/fuzz-corpus-fetcher) and fuzz_server (the server's request dispatch as a
# whole, against a client sending the input as requests; corpus in
# tests/shuffle/fuzz-corpus-server), and where UCX is installed fuzz_ucx (the ucx backend's
# active-message handlers and gets with damaged remote keys, against a raw UCP peer; corpus
# in tests/dataplane/fuzz-corpus-ucx). Builds with clang
# directly so that the meson build may use any compiler. fuzz_frames starts from valid frames
# written by the codec itself (fuzz_seeds.c), fuzz_tcp from the corpus checked in under
# tests/dataplane/fuzz-corpus. Exits non-zero on any crash, sanitizer report or leak.
set -eu
secs=${1:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sw-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT
fuzz="-std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
deps=$(pkg-config --cflags --libs libisal liblz4 libzstd libcrypto nettle)
srcs="$root/shuffle/proto.c $root/shuffle/pack.c $root/shuffle/auth.c $root/shuffle/umac.c"
dp="$root/dataplane/dp.c $root/dataplane/mem.c $root/dataplane/devices.c $root/dataplane/spin.c $root/dataplane/tcp.c"
# shellcheck disable=SC2086
clang $fuzz -I"$root/shuffle" -I"$root/shuffle/include" "$root/tests/shuffle/fuzz_frames.c" $srcs $deps \
	-o "$work/fuzz_frames"
# shellcheck disable=SC2086
clang $fuzz -I"$root/dataplane/include" "$root/tests/dataplane/fuzz_tcp.c" $dp \
	$(pkg-config --cflags --libs numa libibverbs) -o "$work/fuzz_tcp"
# shellcheck disable=SC2086
clang $fuzz -I"$root/shuffle" -I"$root/shuffle/include" -I"$root/dataplane/include" "$root/tests/shuffle/fuzz_fetcher.c" $srcs \
	"$root/shuffle/fetcher.c" "$root/shuffle/log.c" $dp $deps \
	$(pkg-config --cflags --libs numa libibverbs) -o "$work/fuzz_fetcher"
# shellcheck disable=SC2086
clang $fuzz -I"$root/shuffle" -I"$root/shuffle/include" -I"$root/dataplane/include" "$root/tests/shuffle/fuzz_server.c" $srcs \
	"$root/shuffle/server.c" "$root/shuffle/store.c" "$root/shuffle/durable.c" "$root/shuffle/arena.c" "$root/shuffle/log.c" $dp $deps \
	$(pkg-config --cflags --libs numa libibverbs) -lpthread -o "$work/fuzz_server"
targets="frames tcp fetcher server"
if pkg-config --exists ucx; then
	# shellcheck disable=SC2086
	clang $fuzz -DSW_DP_HAVE_UCX -I"$root/dataplane/include" "$root/tests/dataplane/fuzz_ucx.c" $dp \
		"$root/dataplane/ucx.c" $(pkg-config --cflags --libs ucx numa libibverbs) -o "$work/fuzz_ucx"
	mkdir "$work/ucx"
	cp "$root"/tests/dataplane/fuzz-corpus-ucx/* "$work/ucx/"
	targets="$targets ucx"
	# UCX's own allocations made once per process (its worker, the packed key) are its business
	echo "leak:libucs.so" >"$work/lsan.supp"
	export LSAN_OPTIONS="suppressions=$work/lsan.supp"
	export UCX_NET_DEVICES=lo
fi
# shellcheck disable=SC2086
clang -std=gnu11 -D_GNU_SOURCE -I"$root/shuffle" -I"$root/shuffle/include" "$root/tests/shuffle/fuzz_seeds.c" $srcs \
	$deps -o "$work/fuzz_seeds"
mkdir "$work/frames" "$work/tcp" "$work/fetcher" "$work/server"
"$work/fuzz_seeds" "$work/frames"
cp "$root"/tests/dataplane/fuzz-corpus/* "$work/tcp/"
cp "$root"/tests/shuffle/fuzz-corpus-fetcher/* "$work/fetcher/"
cp "$root"/tests/shuffle/fuzz-corpus-server/* "$work/server/"
cd "$work"
status=0
for t in $targets; do
	if ./fuzz_$t -max_total_time="$secs" -max_len=4096 -print_final_stats=1 $t >$t.log 2>&1; then
		grep -E '^(Done|stat::(number_of_executed_units|new_units_added))' $t.log
		echo "fuzz_$t: no crash in ${secs} s"
	else
		cat $t.log
		echo "fuzz_$t: FAILED (crash input above)" >&2
		status=1
	fi
done
exit $status
