# Sourced by the shell test suites: one result line per check, counted in passed/failed.
passed=0
failed=0
check() { # NAME COMMAND...
	name=$1
	shift
	if "$@"; then
		echo "ok: $name"
		passed=$((passed + 1))
	else
		echo "FAILED: $name"
		failed=$((failed + 1))
	fi
}
# has FILE TEXT: FILE holds TEXT; otherwise shows the end of FILE
has() { grep -qF -- "$2" "$1" || { echo "  '$2' not in $1:"; tail -40 "$1" | sed 's/^/  | /'; false; }; }
