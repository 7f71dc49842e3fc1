# shtest.sh - what the shell tests share (sourced; $T must be a scratch
# directory): pass/fail counters and their lines, and expect.
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# expect CODE WHAT COMMAND...: COMMAND exits with CODE (its output in
# $T/out and $T/err, shown when it does not)
expect() {
	want=$1
	what=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$what"; else
		bad "$what: exit $got, want $want"
		sed 's/^/     /' "$T/out" "$T/err" | head -20
	fi
}
