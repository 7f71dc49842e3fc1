#!/bin/sh
# demo.sh O - the whole system on real kernels, stated step by step
# (`make demo`; N=guests, default 3; KEEP=1 leaves the fleet running).
#
# A throwaway PKI, attest-verifier on this host (SQLite in a temporary
# directory, HTTPS on loopback), a whitelist generated from the guests'
# root filesystem with attest-whitelist, then N qemu guests of Debian's
# stock kernel, each with its own swtpm (and EK certificate), slim.ko and
# attest-agent; all of them trusted; then one runs a program that is on no
# whitelist and turns untrusted, named, while the others stay trusted;
# then everything is shut down.
set -u
O=$(cd "${1:-build}" && pwd)
N=${N:-3}
KEEP=${KEEP:-}
VM_SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/fleet.sh"
FLEET_BIN=$O/rel/bin
FLEET_DIR=$(mktemp -d "${TMPDIR:-/tmp}/attest-demo.XXXXXX")
export FLEET_DIR FLEET_BIN
t0=$(date +%s)

step() { printf '\n==> [%3ss] %s\n' $(($(date +%s) - t0)) "$*"; }
die() {
	echo "demo: $*" >&2
	exit 1
}

# the guests' numbers, 1..N
guests() { seq "$N" 2>/dev/null; }

stop_all() {
	for gn in $(guests); do
		fleet_guest_stop "$gn"
	done
	fleet_verifier_stop
}

cleanup() {
	[ -n "$KEEP" ] && return 0
	stop_all >/dev/null 2>&1
	rm -rf "$FLEET_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

case "$N" in
'' | *[!0-9]*) die "N must be a number" ;;
esac
[ "$N" -ge 2 ] || die "N must be at least 2 (one guest turns untrusted)"
FLEET_KRELS=$(vm_kernel_release 6.1)
export FLEET_KRELS
[ -f "/boot/vmlinuz-$FLEET_KRELS" ] || die "kernel $FLEET_KRELS is not installed (deploy/install-deps.sh)"

step "A throwaway PKI and attest-verifier on this host (SQLite, HTTPS on loopback)"
fleet_verifier_start || die "the verifier did not start: see $FLEET_DIR/verifier/verifier.log"
echo "    https://127.0.0.1:$FLEET_PORT (the guests reach it as https://10.0.2.2:$FLEET_PORT)"
echo "    database $FLEET_DIR/verifier/verifier.db; log $FLEET_DIR/verifier/verifier.log"

step "slim.ko for $FLEET_KRELS, the guests' root filesystem, and its whitelist (attest-whitelist create --rootfs)"
fleet_prepare >"$FLEET_DIR/prepare.log" 2>&1 || {
	tail -n 20 "$FLEET_DIR/prepare.log"
	die "cannot build the guests"
}
sed -n 's/^attest-whitelist: /    /p' "$FLEET_DIR/prepare.log"
fleet_ctl whitelists | python3 -c 'import json, sys
for w in json.load(sys.stdin)["whitelists"]:
    print("    whitelist %s, version %d, uploaded to the verifier" % (w["name"], w["version"]))'

step "Booting $N guests under qemu (stock kernel, ima_policy=tcb, slim.ko), each with its own swtpm"
for gn in $(guests); do
	fleet_guest_start "$gn" || die "cannot start guest $gn"
	echo "    guest-$gn: console $FLEET_DIR/g$gn/console.log"
done

step "Each agent enrolls (EK certificate, AK, credential activation); the whitelist is assigned"
for gn in $(guests); do
	fleet_wait_console "$gn" '@@FLEET listening' 600 ||
		die "guest-$gn did not boot: see $FLEET_DIR/g$gn/console.log"
	fleet_enrolled_assign "$gn" 300 || die "guest-$gn did not enroll: see $FLEET_DIR/g$gn/console.log"
	echo "    guest-$gn enrolled, judged by whitelist 'fleet'"
done

step "Waiting until every guest is trusted (quote, both lists replayed, every entry known)"
for gn in $(guests); do
	fleet_wait_state "$gn" trusted 300 || die "guest-$gn is $(fleet_state "$gn")"
done
fleet_ctl fleet

step "guest-2 runs a program that is on no whitelist"
fleet_cmd 2 run-unknown || die "guest-2 did not take the command"
fleet_wait_state 2 untrusted 120 || die "guest-2 is still $(fleet_state 2)"
sleep "$FLEET_INTERVAL"
fleet_ctl fleet

step "What the verifier says about guest-2 (attestctl agent guest-2, last result)"
fleet_ctl agent guest-2 | python3 -c 'import json, sys
r = json.load(sys.stdin)["last_result"]
for log in r.get("logs", []):
    for f in log.get("failures", []):
        print("    %s list, entry %d: %s %s (%s)" % (log["name"], f["index"], f["reason"], f["path"], f.get("detail", "")))'

if [ -n "$KEEP" ]; then
	step "KEEP=1: the fleet keeps running"
	cat <<EOF
    attestctl:  export ATTEST_URL=https://127.0.0.1:$FLEET_PORT \\
                  ATTEST_CA=$FLEET_DIR/pki/server-ca.pem \\
                  ATTEST_CERT=$FLEET_DIR/pki/admin.pem ATTEST_KEY=$FLEET_DIR/pki/admin.key
                $FLEET_BIN/attestctl fleet
    consoles:   $FLEET_DIR/g*/console.log
    commands:   $VM_SRC/deploy/fleet-cmd.sh $FLEET_DIR N COMMAND
                (run-unknown, load-module, demote, permissive, reload,
                 reboot, poweroff)
    stop:       kill \$(cat $FLEET_DIR/g*/qemu.pid $FLEET_DIR/g*/swtpm.pid $FLEET_DIR/verifier/pid); rm -rf $FLEET_DIR
EOF
	exit 0
fi

step "Shutting down: guests powered off, verifier stopped"
stop_all
step "Done"
