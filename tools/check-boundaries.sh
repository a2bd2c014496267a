#!/bin/sh
# Module boundaries, checked on a build directory (meson test runs it as "boundaries"):
# 1. every global symbol a module's static library defines carries the module's prefix, so
#    that modules linked into one program cannot collide or reach each other's internals;
# 2. only the module itself, its own tests and its own benchmarks compile with the module's
#    private include directory (the module's folder; its public headers are in include/).
#    A public dependency that exposed the folder, or a file of another module reaching into
#    it, shows up as a compile command carrying that -I; an #include "../x/y.h" is refused.
# Usage: tools/check-boundaries.sh BUILD_DIR. Prints every violation; exits 1 if any.
set -eu
build=$(cd "${1:?usage: check-boundaries.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)

# module folder | its static libraries (in the build dir) | symbol prefix |
# the other files and folders that may use its internals (its tests and benchmarks)
modules='
scheduler|scheduler/libsw_sched.a|sw_sched_|tests/scheduler perf/bench_sched.cc
tools/sim|tools/sim/libsw_sim.a|sw_sim_|tests/sim tests/sim_workload
netsat|netsat/libsw_netsat.a|sw_netsat_|tests/netsat perf/bench_netsat.c
agent/wire|agent/wire/libsw_wire.a|sw_wire_|tests/wire
agent/kv|agent/kv/libsw_kv.a|sw_kv_|
agent|agent/libsw_agent.a agent/libsw_agent_daemon.a|sw_agent_|tests/agent
controller|controller/libsw_ctl_trace.a|sw_ctl_|tests/controller
dataplane|dataplane/libsw_dp.a|sw_dp_|tests/dataplane perf/bench_dp.c
shuffle|shuffle/libsw_shuffle.a|sw_shuffle_|tests/shuffle perf/bench_shuffle.c perf/bench_mac.c
'

symbols() {
	echo "$modules" | while IFS='|' read -r dir libs prefix users; do
		for lib in $libs; do
			if [ ! -f "$build/$lib" ]; then
				echo "$lib: not built"
				continue
			fi
			# Compiler-generated symbols (sanitizers' __odr_asan...) begin with "__";
			# malloc_conf is the name jemalloc reads its options from (dataplane/dp.c).
			nm -g --defined-only "$build/$lib" | awk -v p="$prefix" -v l="$lib" '
				/:$/ { obj = $1; sub(/:$/, "", obj); sub(/.*\//, "", obj); next }
				NF == 3 && index($3, p) != 1 && $3 !~ /^__/ && $3 != "malloc_conf" {
					print l " (" obj "): global symbol " $3 " lacks the prefix " p }'
		done
	done
}

# One pass over compile_commands.json: every -I naming a module's folder, on a file that is
# neither directly in that folder nor among its allowed users.
includes() {
	echo "$modules" | awk -v src="$src" -v build="$build" '
	function norm(p,    n, i, k, part, out) {
		if (p !~ /^\//) p = build "/" p
		n = split(p, part, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (part[i] == "" || part[i] == ".") continue
			if (part[i] == "..") { if (k > 0) k--; continue }
			out[++k] = part[i]
		}
		p = ""
		for (i = 1; i <= k; i++) p = p "/" out[i]
		return p
	}
	function allowed(rel, d,    n, i, u, f) {
		f = rel; sub(/\/[^\/]*$/, "", f)
		if (f == d) return 1
		n = split(users[d], u, " ")
		for (i = 1; i <= n; i++)
			if (rel == u[i] || index(rel, u[i] "/") == 1) return 1
		return 0
	}
	FILENAME == "-" { if (split($0, m, "|") >= 3) { users[m[1]] = m[4]; mod[src "/" m[1]] = m[1] }
			  next }
	/"command":/ { cmd = $0 }
	/"file":/ {
		f = $0; sub(/^ *"file": "/, "", f); sub(/",?$/, "", f)
		# A generated source counts as a file of the folder its build dir mirrors.
		f = norm(f)
		rel = index(f, build "/") == 1 ? substr(f, length(build) + 2) : \
		      substr(f, length(src) + 2)
		n = split(cmd, arg, " ")
		for (i = 1; i <= n; i++) {
			if (substr(arg[i], 1, 2) != "-I") continue
			d = norm(substr(arg[i], 3))
			if ((d in mod) && !allowed(rel, mod[d]))
				print rel ": compiled with " mod[d] "/, its private include dir"
		}
	}' - "$build/compile_commands.json"
}

# A quoted include climbing out of its folder would pass any -I: none is allowed.
climbs() {
	find "$src" \( -name '.git' -o -name 'build*' \) -prune -o \
		\( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print |
		xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' |
		sed "s|^$src/||; s|\$| (an include that climbs out of its folder)|" || true
}

out=$(symbols; includes; climbs)
if [ -n "$out" ]; then
	echo "$out" | sed 's/^/check-boundaries: /' >&2
	echo "check-boundaries: $(echo "$out" | wc -l) violations" >&2
	exit 1
fi
echo "check-boundaries: every module's symbols carry its prefix; no file reaches another's internals"
