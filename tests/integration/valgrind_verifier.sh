#!/bin/sh
# valgrind_verifier.sh - attest-verifier (release build) under valgrind
# memcheck through whole integration tests: the REST API with its bad
# input (test_verifier_api), enrollment with its refusals
# (test_verifier_enroll), and the faults (test_faults, a few kill rounds:
# a killed valgrind cannot report, the PostgreSQL outage, the full disk
# and every clean stop can). Every verifier those tests start runs in
# valgrind (ATT_VALGRIND=1, tests/lib/verifier_proc.c); an invalid access
# or a definite/indirect/possible leak makes it exit 99 at its SIGTERM
# stop, which fails the test.
set -u
T=${ATT_SAN_BUILD:-${ATT_BUILD:?}}/tests/integration
command -v valgrind >/dev/null || { echo "FAIL: valgrind missing"; exit 1; }
fail=0
for t in test_verifier_api test_verifier_enroll test_faults; do
	[ -x "$T/$t" ] || { echo "FAIL $t: $T/$t not built"; fail=1; continue; }
	if ATT_VALGRIND=1 ATT_FAULT_LOOPS=3 "$T/$t" >"${ATT_TMP:-/tmp}/vg-$t.log" 2>&1; then
		echo "ok   $t (verifier under valgrind)"
	else
		echo "FAIL $t (verifier under valgrind), log tail:"
		grep -v "DEBUG\|debug" "${ATT_TMP:-/tmp}/vg-$t.log" | tail -40 | sed 's/^/     /'
		fail=1
	fi
done
exit $fail
