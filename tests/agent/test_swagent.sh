#!/bin/sh
# swagent as users run it: --help, a bad config line, a key file others can read, /metrics
# (promtool accepts it), SIGTERM, and its systemd unit (systemd-analyze verify).
# Arguments: the swagent and swctl binaries and agent/swagent.service.
set -u
swagent=$(realpath "$1") # meson passes paths relative to the build directory
swctl=$(realpath "$2")
unit=$(realpath "$3")
dir=$(mktemp -d /tmp/sw-swagent-test-XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
. "$(dirname "$0")/../check.sh"

"$swctl" keygen "$dir/key" >/dev/null
cat >"$dir/conf" <<CONF
node_id = r0n0
rack = 0
controller = 127.0.0.1:1
shuffle_listen = 127.0.0.1:0
replica_listen = 127.0.0.1:0
metrics_listen = 127.0.0.1:0
key_file = $dir/key
store_dir = $dir
data_dir = $dir/data
CONF

help_exits_0() { "$swagent" --help | grep -q "usage: swagent --config FILE"; }
check "--help prints the usage and exits 0" help_exits_0

bad_line() {
	sed 's/^rack = 0$/rack = -1/' "$dir/conf" >"$dir/bad.conf"
	"$swagent" --config "$dir/bad.conf" 2>"$dir/err" && return 1
	has "$dir/err" "swagent: $dir/bad.conf:2: rack: not a number: '-1'"
}
check "a bad config line stops it with file, line and field, exit 1" bad_line

loose_key() {
	cp "$dir/key" "$dir/loose.key" && chmod 0644 "$dir/loose.key"
	sed "s|^key_file = .*|key_file = $dir/loose.key|" "$dir/conf" >"$dir/loose.conf"
	"$swagent" --config "$dir/loose.conf" 2>"$dir/err" && return 1
	has "$dir/err" "swagent: key_file: " && has "$dir/err" "loose.key"
}
check "a key file others can read is refused, exit 1" loose_key

"$swagent" --config "$dir/conf" 2>"$dir/log" &
pid=$!
# the start line names the bound addresses; wait for it (bounded by meson's timeout)
until grep -q "metrics on" "$dir/log"; do sleep 0.1; done
metrics=$(sed -n 's/.*metrics on \([0-9.:]*\),.*/\1/p' "$dir/log")

metrics_page() {
	curl -sf "http://$metrics/metrics" >"$dir/metrics" &&
		has "$dir/metrics" 'swagent_info{node="r0n0",rack="0",transport="tcp"} 1' &&
		has "$dir/metrics" "swagent_registered 0" &&
		promtool check metrics <"$dir/metrics"
}
check "/metrics is Prometheus text that promtool accepts" metrics_page

other_paths() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://$metrics/")" = 404 ] &&
		[ "$(curl -s -X POST -o /dev/null -w '%{http_code}' "http://$metrics/metrics")" = 405 ]
}
check "other paths get 404, other methods 405" other_paths

retries() {
	until grep -q "connection refused" "$dir/log"; do sleep 0.1; done
	has "$dir/log" "controller 127.0.0.1:1: connection refused: nobody listens at that address"
}
check "an absent controller is logged and retried" retries

sigterm() {
	kill -TERM "$pid" && wait "$pid" && pid= && has "$dir/log" "signal 15 (Terminated): stopping"
}
check "SIGTERM stops it with exit status 0" sigterm

verify_unit() {
	sed "s|/usr/local/bin/swagent|$swagent|" "$unit" >"$dir/swagent.service" &&
		systemd-analyze verify "$dir/swagent.service"
}
check "the systemd unit passes systemd-analyze verify" verify_unit

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
