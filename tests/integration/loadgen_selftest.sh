#!/bin/sh
# loadgen_selftest.sh - the verifier load generator (bench/loadgen) is
# correct, not fast: its software TPM against libattest (credential
# activation with RSA and ECC EKs, quotes), then 8 simulated agents (two
# with broken quote signatures, two measuring an unknown file) against a
# real attest-verifier on SQLite for a second: every verdict must be the
# expected one (the load generator exits non-zero otherwise). No speed is
# checked here; bench/load.sh (make bench) measures.
set -u
B=${ATT_BUILD:?}
S=${ATT_SRC:?}
LG="$B/tools/att-bench-loadgen"
[ -x "$LG" ] || { echo "FAIL $LG missing (make rel)"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
if timeout 120 "$LG" --selftest 2 >"$out" 2>&1; then
	echo "ok   software TPM self-test"
else
	echo "FAIL software TPM self-test"; cat "$out"; fail=1
fi
if LOAD_BACKENDS=sqlite LOAD_AGENTS=8 LOAD_DURATION=1 LOAD_CONC=4 \
	LOAD_FILES=300 LOAD_BIG=500 LOAD_BAD_SIG=0.25 LOAD_UNKNOWN=0.25 \
	timeout 300 sh "$S/bench/load.sh" "$B" >"$out" 2>&1 &&
	grep -q "^| sqlite | 8 |.* 0 / 0 |$" "$out"; then
	echo "ok   8 agents against a real verifier, every verdict as expected"
else
	echo "FAIL load generator against the verifier"; cat "$out"; fail=1
fi
exit $fail
