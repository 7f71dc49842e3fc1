#!/bin/bash
# run-tests.sh KIND DIR... - runs every test binary (test_*) in the given
# directories and every tests/KIND/*.sh script, prints one line per test and
# a closing "N passed, N failed" line; exits 1 when any test failed.
#
# ATT_TEST_JOBS (default 2) tests run at once (tests/lib/lanes.sh): most of
# an integration test's time is spent waiting on the processes it starts
# (verifier, swtpm, PostgreSQL, TLS round trips), so two lanes on two cores
# finish the suite in far less time. Each test has its own scratch
# directory, ports and processes. Lines come in the order the tests end.
# ATT_TEST_JOBS=1 runs them one after another.
#
# Environment given to each test: ATT_SRC (source tree), ATT_BUILD (release
# build dir), ATT_SAN_BUILD (sanitizer build dir), ATT_TMP (scratch dir).
set -u
kind=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/lanes.sh"
export ATT_SRC="${ATT_SRC:-$(dirname "$here")}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
logdir="${ATT_LOGDIR:-${ATT_BUILD:-/tmp}/test-logs}/$kind"
mkdir -p "$logdir"

# One test; prints its PASS or FAIL line (with the log's tail).
run_one() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "PASS  $kind/$name ($(($(date +%s) - start))s)"
	else
		echo "FAIL  $kind/$name ($(($(date +%s) - start))s), log follows:"
		tail -n 60 "$logdir/$name.log" | sed 's/^/    | /'
	fi
	return "$rc"
}

# Every test as "NAME PROGRAM [ARG]", the ones tests/KIND/slow-first
# names first (the longest start first, so that the lanes end together),
# then the others in name order.
list() {
	local d t s
	for d in "$@"; do
		[ -d "$d" ] || continue
		for t in "$d"/test_*; do
			[ -x "$t" ] || continue
			case "$t" in *.d | *.o) continue ;; esac
			echo "$(basename "$t") $t"
		done
	done
	for s in "$ATT_SRC/tests/$kind"/*.sh; do
		[ -f "$s" ] || continue
		echo "$(basename "$s" .sh) sh $s"
	done
}
all=$(list "$@")
first="$ATT_SRC/tests/$kind/slow-first"
ordered=$(
	if [ -f "$first" ]; then
		grep -v '^#' "$first" | while read -r n; do
			echo "$all" | awk -v n="$n" '$1 == n'
		done
	fi
	echo "$all" | awk -v f="$first" '
		BEGIN { while ((getline l < f) > 0) skip[l] = 1 }
		!($1 in skip)'
)
lanes_init "${ATT_TEST_JOBS:-2}"
while read -r name prog arg; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # arg is one path without spaces, or empty
	lanes_run "$name" run_one "$name" $prog $arg
done <<<"$ordered"
lanes_finish
echo "$kind: $lanes_pass passed, $lanes_fail failed"
[ "$lanes_fail" -eq 0 ] || { echo "$kind: failed: $lanes_failed"; exit 1; }
