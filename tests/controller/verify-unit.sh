#!/bin/sh
# systemd-analyze verify on controller/swcontroller.service, its ExecStart pointed at the
# built binary (systemd is not PID 1 here, so the unit is checked, not run). Fails on any
# message systemd-analyze prints, not only on its exit status.
set -eu
unit=$1
bin=$2
work=$(mktemp -d /tmp/sw-unit-XXXXXX)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/local/bin/swcontroller|$bin|" "$unit" >"$work/swcontroller.service"
systemd-analyze verify "$work/swcontroller.service" >"$work/out" 2>&1 || {
	cat "$work/out"
	exit 1
}
if [ -s "$work/out" ]; then
	cat "$work/out"
	exit 1
fi
echo "swcontroller.service: systemd-analyze verify passes"
