#!/bin/sh
# Catches DPDK's "EAL: Error: Invalid memory" (rte_free of an element not in use: a second
# free inside DPDK) in the act: runs `bench_dp dpdk` over memif RUNS times (64 KiB, 1 MiB and
# 16 MiB messages in turn, MIB per run) with a preloaded rte_vlog that prints a backtrace,
# process and thread when it is asked to log that message; prints each run that hit it.
# Debian's DPDK has no symbols: read the offsets against `objdump -d` of the library named
# (dataplane/README.md, "Backend dpdk", for what they were).
# Usage: perf/bench-dp-freetrap.sh [path/to/bench_dp]   (env: RUNS=45, MIB=256)
set -eu
BENCH=${1:-build/perf/bench_dp}
RUNS=${RUNS:-45}
MIB=${MIB:-256}
[ -x "$BENCH" ] || { echo "bench-dp-freetrap.sh: no $BENCH (meson compile first)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/bench-dp-freetrap-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/trap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* rte_log calls rte_vlog inside the library, so both are wrapped. */
int rte_vlog(uint32_t level, uint32_t type, const char *fmt, va_list ap)
{
	static int (*real)(uint32_t, uint32_t, const char *, va_list);
	void *b[64];

	if (!real)
		real = (int (*)(uint32_t, uint32_t, const char *, va_list))dlsym(RTLD_NEXT, "rte_vlog");
	if (strstr(fmt, "Invalid memory")) {
		dprintf(2, "trap: pid %d tid %d: %s", getpid(), gettid(), fmt);
		backtrace_symbols_fd(b, backtrace(b, 64), 2);
	}
	return real(level, type, fmt, ap);
}

int rte_log(uint32_t level, uint32_t type, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = rte_vlog(level, type, fmt, ap);
	va_end(ap);
	return r;
}
C
cc -shared -fPIC -O1 -o "$tmp/trap.so" "$tmp/trap.c" -ldl
i=0 hits=0
while [ $i -lt "$RUNS" ]; do
	for s in 65536 1048576 16777216; do
		[ $i -lt "$RUNS" ] || break
		i=$((i + 1))
		LD_PRELOAD=$tmp/trap.so "$BENCH" dpdk $s "$MIB" >/dev/null 2>"$tmp/err" || true
		if grep -q '^trap:' "$tmp/err"; then
			hits=$((hits + 1))
			echo "# run $i (dpdk $s $MIB):"
			grep -A20 '^trap:' "$tmp/err" | grep -v '^trap.so\|trap\.so('
		fi
	done
done
echo "# $hits of $RUNS runs freed twice"
