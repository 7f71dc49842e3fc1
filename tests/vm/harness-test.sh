#!/bin/sh
# harness-test.sh - the guest's scenario runner (guest/common.sh, run_scn)
# on the host under busybox sh, as the guest runs it: a scenario that
# passes, one that fails with a reason, one that hangs (with a child that
# hangs too) past its time limit, and one after it that must still run.
# Prints PASS/FAIL lines "vm/harness/..." and "harness: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0
failn=0
ok() { echo "PASS vm/harness/$1"; pass=$((pass + 1)); }
ko() { echo "FAIL vm/harness/$1: $2"; failn=$((failn + 1)); }
t=$(mktemp -d "${TMPDIR:-/tmp}/harness.XXXXXX")
trap 'rm -rf "$t"' EXIT
tag="harness-$$"
cat >"$t/plan.sh" <<PLAN
. "$here/guest/common.sh"
scn_quick() { true; }
scn_says_why() { fail "the reason"; return 1; }
scn_hangs() {
	busybox sh -c "sleep 1000; : $tag" &
	busybox sh -c "sleep 1001; : $tag"
}
scn_after() { echo ran-after >"$t/after"; }
for s in quick says_why hangs after; do
	run_scn \$s
done
echo "@@PLAN-END"
PLAN
TMPDIR=$t SCN_LIMIT=2 busybox sh "$t/plan.sh" >"$t/out" 2>&1
out=$t/out
grep -qx '@@SCEN quick PASS' "$out" && ok quick_passes || ko quick_passes "$(tr '\n' '|' <"$out")"
grep -qx '@@SCEN says_why FAIL: the reason' "$out" && ok failure_reason ||
	ko failure_reason "$(grep 'says_why' "$out")"
grep -q '^@@SCEN hangs FAIL: timed out after 2s' "$out" && ok hang_times_out ||
	ko hang_times_out "$(grep 'hangs' "$out")"
[ -f "$t/after" ] && grep -qx '@@SCEN after PASS' "$out" && grep -qx '@@PLAN-END' "$out" &&
	ok next_scenario_runs || ko next_scenario_runs "$(tr '\n' '|' <"$out")"
if pgrep -f "sleep 100[01]; : $tag" >/dev/null || pgrep -f "^sleep 100[01]$" >/dev/null; then
	ko hang_killed "the hung scenario's processes are still running"
	pkill -f "sleep 100[01]; : $tag"; pkill -f "^sleep 100[01]$"
else
	ok hang_killed
fi
echo "harness: $pass passed, $failn failed"
[ "$failn" = 0 ]
