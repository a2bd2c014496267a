#!/bin/sh
# swcontroller's config file as users meet it: each kind of bad line stops the start with
# FILE:LINE: KEY: reason (or FILE: KEY: missing), exit status 1, before anything is opened.
# Arguments: the swcontroller binary.
set -u
ctl=$(realpath "$1") # meson passes paths relative to the build directory
dir=$(mktemp -d /tmp/sw-ctl-conf-test-XXXXXX)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/../check.sh"

good="listen = 127.0.0.1:0
http_listen = 127.0.0.1:0
key_file = $dir/key
state_db = $dir/db
node = r0n1 0"
# refused LINE MESSAGE: the good file plus LINE (line 6) is refused with MESSAGE
refused() {
	printf '%s\n%s\n' "$good" "$1" >"$dir/c.conf"
	"$ctl" -c "$dir/c.conf" 2>"$dir/err" && return 1
	has "$dir/err" "swcontroller: $dir/c.conf$2"
}
check "a number out of range names the range" refused "heartbeat_ms = 50" \
	":6: heartbeat_ms: out of range (100..600000)"
check "a word where a number belongs" refused "users = many" ":6: users: not a number"
check "an address that is not IPv4:port" refused "listen = localhost:7000" \
	":6: listen: bad IPv4 address"
check "an unknown key" refused "polcy = fifo" ":6: polcy: unknown key"
check "a line without =" refused "node r0n2 0" ":6: expected 'key = value'"
check "a node named twice" refused "node = r0n1 1" ":6: node: node named twice"
check "an unknown policy" refused "policy = best" \
	":6: policy: unknown policy (see swctl replay --help)"
check "lost_after_ms under two heartbeats" refused "lost_after_ms = 1000" \
	": lost_after_ms: less than two heartbeats (6000 ms)"
check "a pace_uplink that is no fraction of the uplink" refused "pace_uplink = 1.5" \
	":6: pace_uplink: expected off or a number in (0, 1]"
check "a saturation_threshold NetSat cannot clear" refused "saturation_threshold = 0.05" \
	":6: saturation_threshold: expected a number in [0.1, 1]"
check "pace_uplink not above saturation_threshold (a paced rack would flip unpaced)" refused \
	"pace_uplink = 0.7" ": pace_uplink: 0.7 is not above saturation_threshold (0.8)"

missing() {
	printf '%s\n' "$good" | grep -v state_db >"$dir/c.conf"
	"$ctl" -c "$dir/c.conf" 2>"$dir/err" && return 1
	has "$dir/err" "swcontroller: $dir/c.conf: state_db: missing (required)"
}
check "a required key left out is named" missing

too_long() {
	{ printf '%s\ntrace_file = /' "$good"; head -c 5000 /dev/zero | tr '\0' x; echo; } \
		>"$dir/c.conf"
	"$ctl" -c "$dir/c.conf" 2>"$dir/err" && return 1
	has "$dir/err" "swcontroller: $dir/c.conf:6: line too long"
}
check "an overlong line is refused, not read as two" too_long

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
