#!/bin/sh
# netsat/ benchmark: one agent report folded by the uplink tracker (10,000 nodes, 250 racks,
# all or 10 listed) against the bare fold, and one link / qdisc source read against reading
# /proc/net/dev.
# usage: perf/bench-netsat.sh [BUILD_DIR]   (default: build-release, configured if missing)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build-release}
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
meson compile -C "$build" perf/bench_netsat >/dev/null
"$build/perf/bench_netsat"
