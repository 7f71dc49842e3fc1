#!/bin/bash
# run-all.sh O FUZZ_SECONDS - the whole `make check` test pass after the
# builds: unit (ASan+UBSan), integration, fuzz (time-boxed), VM, and the
# fleet (real verifier, qemu guests with swtpm, slim.ko and attest-agent)
# and the Debian packages in a real Debian 12 guest (tests/vm/deb-test.sh),
# and Debian whitelists in layers on one (tests/vm/wl-layers-test.sh).
# Every suite runs even when an earlier one failed; the exit status is 1
# when any failed, and the last line totals them.
set -u
O=$1
FUZZ_SECONDS=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
export ATT_SRC="$(dirname "$here")"
export ATT_BUILD="$O/rel"
export ATT_SAN_BUILD="$O/san"
export ATT_LOGDIR="$O/test-logs"
status=0
suites=""
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
run_suite() {
	name=$1
	shift
	echo "=== $name"
	"$@" 2>&1 | tee -a "$counts"
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		suites="$suites $name:ok"
	else
		suites="$suites $name:FAILED"
		status=1
	fi
}
run_suite unit "$here/run-tests.sh" unit "$O/san/tests/unit"
run_suite integration "$here/run-tests.sh" integration "$O/san/tests/integration"
run_suite fuzz "$here/fuzz/run.sh" "$O/fuzz" "$FUZZ_SECONDS"
run_suite kernel-static "$here/kernel-static.sh" "$O"
if [ -x "$here/vm/run.sh" ]; then
	run_suite vm "$here/vm/run.sh" "$O"
fi
run_suite fleet "$here/vm/fleet-test.sh" "$O"
# the Debian packages (make deb) installed, upgraded and purged with apt in
# a real Debian 12 guest, its agent started by systemd and attested
run_suite deb "$here/vm/deb-test.sh" "$O"
# slim.ko in enforce mode on a real Debian 12 host labeled with
# deploy/slim/debian.policy (issue 37)
run_suite enforce "$here/vm/deb-enforce-test.sh" "$O"
# Debian whitelists in layers on a real Debian 12 guest with ima_policy=tcb:
# trusted at boot and across an apt upgrade from a signed repository
run_suite layers "$here/vm/wl-layers-test.sh" "$O"
echo "=== summary:$suites"
# One closing line over every suite (each suite ends with "KIND: N passed,
# N failed").
sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$counts" |
	awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}'
exit $status
