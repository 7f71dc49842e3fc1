#!/bin/sh
# run-tests.sh KIND DIR... - runs every test binary (test_*) in the given
# directories and every tests/KIND/*.sh script, prints one line per test and
# a closing "N passed, N failed" line; exits 1 when any test failed.
#
# Environment given to each test: ATT_SRC (source tree), ATT_BUILD (release
# build dir), ATT_SAN_BUILD (sanitizer build dir), ATT_TMP (scratch dir).
set -u
kind=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
export ATT_SRC="${ATT_SRC:-$(dirname "$here")}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
logdir="${ATT_LOGDIR:-${ATT_BUILD:-/tmp}/test-logs}/$kind"
mkdir -p "$logdir"
pass=0
fail=0
failed=""
run_one() {
	name=$1
	shift
	start=$(date +%s)
	if "$@" >"$logdir/$name.log" 2>&1; then
		pass=$((pass + 1))
		echo "PASS  $kind/$name ($(($(date +%s) - start))s)"
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL  $kind/$name ($(($(date +%s) - start))s), log follows:"
		tail -n 60 "$logdir/$name.log" | sed 's/^/    | /'
	fi
}
for d in "$@"; do
	[ -d "$d" ] || continue
	for t in "$d"/test_*; do
		[ -x "$t" ] || continue
		case "$t" in *.d | *.o) continue ;; esac
		run_one "$(basename "$t")" "$t"
	done
done
for s in "$ATT_SRC/tests/$kind"/*.sh; do
	[ -f "$s" ] || continue
	run_one "$(basename "$s" .sh)" sh "$s"
done
echo "$kind: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || { echo "$kind: failed:$failed"; exit 1; }
