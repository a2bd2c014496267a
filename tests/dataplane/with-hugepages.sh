#!/bin/sh
# Runs test_dp with its own EAL memory on 2 MiB hugepages and its memif clients in zero-copy
# mode, which needs them (SW_TEST_HUGEPAGE_EAL; its peers keep --no-huge): reserves PAGES
# more hugepages for the run and gives them back after. Root; skips (77) where the kernel
# gives too few.
# Usage: with-hugepages.sh COMMAND [ARG...]   (env PAGES=160)
set -u
pages=${PAGES:-160}
nr=/proc/sys/vm/nr_hugepages
[ "$(id -u)" = 0 ] && [ -w "$nr" ] || { echo "with-hugepages.sh: needs root" >&2; exit 77; }
before=$(cat "$nr")
trap 'echo "$before" >"$nr"' EXIT
echo $((before + pages)) >"$nr"
got=$(($(cat "$nr") - before))
[ "$got" -ge "$pages" ] || { echo "with-hugepages.sh: the kernel gave $got of $pages hugepages" >&2; exit 77; }
export SW_TEST_HUGEPAGE_EAL="--no-pci --in-memory --single-file-segments --socket-mem 256 --socket-limit 256 --no-telemetry --log-level=lib.eal:warning"
"$@"
