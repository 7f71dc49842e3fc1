#!/bin/sh
# fleet-test.sh O - the whole system on real kernels, as a test of
# `make check`: a real attest-verifier on this host (SQLite, HTTPS on
# loopback), two qemu guests (Debian's 6.1 and 6.12 kernels by default),
# each with its own swtpm, mainline IMA (ima_policy=tcb), slim.ko and
# attest-agent. Judged through the verifier's REST API (attestctl):
#   both guests enroll and are trusted with the whitelist generated from
#   their root filesystem; a script that is on no whitelist turns guest 1
#   untrusted, naming it, while guest 2 stays trusted; a kernel module
#   that is on no whitelist turns guest 2 untrusted, naming it; guest 1
#   rebooted (same swtpm, new boot) is trusted again without enrolling
#   again, its firmware event log replayed; the fleet report validates
#   against its schema; a guest powered off goes stale. slim.ko enforces
#   its lattice (the whitelist requires mode enforce): each guest's
#   lattice state is in the fleet report; a SYSTEM task reading a file
#   labelled UNTRUSTED is a demotion in the report while the host stays
#   trusted; switching slim.ko to permissive makes the host untrusted
#   with that reason; removing and loading slim.ko again in the same boot
#   gives the verdict "module reloaded in this boot".
# Prints PASS/FAIL lines and "fleet: N passed, N failed".
set -u
O=$(cd "${1:?usage: fleet-test.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/fleet.sh"
FLEET_DIR=$O/vm/fleet
FLEET_BIN=$O/rel/bin
FLEET_KRELS=${FLEET_KRELS:-"$(vm_kernel_release 6.1) $(vm_kernel_release 6.12)"}
FLEET_INTERVAL=3
FLEET_LOGS="ima slim"
export FLEET_DIR FLEET_BIN FLEET_KRELS FLEET_LOGS
BOOT_TIMEOUT=${FLEET_BOOT_TIMEOUT:-300}
pass=0
failn=0

VM_TEST_PREFIX=vm/fleet # ok/ko (lib.sh) name tests vm/fleet/NAME
finish() {
	for n in 1 2; do
		fleet_guest_stop "$n" >/dev/null 2>&1
	done
	fleet_verifier_stop
	echo "fleet: $pass passed, $failn failed"
	[ "$failn" = 0 ]
	exit $?
}

# reasons N: the last result's reasons of guest N, one line
reasons() {
	fleet_ctl agent "guest-$1" >"$FLEET_DIR/g$1/agent.json" 2>/dev/null
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("; ".join((d.get("last_result") or {}).get("reasons", [])))' "$FLEET_DIR/g$1/agent.json"
}

# last N EXPR: a Python expression over the last result r of guest N
last() {
	fleet_ctl agent "guest-$1" >"$FLEET_DIR/g$1/agent.json" 2>/dev/null
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d.get("last_result") or {}
sys.exit(0 if eval(sys.argv[2]) else 1)' "$FLEET_DIR/g$1/agent.json" "$2"
}

# row N EXPR: a Python expression over guest N's row a (and its lattice
# l) in the fleet report
row() {
	fleet_ctl fleet --json >"$FLEET_DIR/g$1/fleet.json" 2>/dev/null
	python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["agents"]
a = next((x for x in rows if x["id"] == sys.argv[2]), {})
l = a.get("lattice") or {}
sys.exit(0 if eval(sys.argv[3]) else 1)' "$FLEET_DIR/g$1/fleet.json" "guest-$1" "$2"
}

# wait_row N EXPR SECONDS: until row N EXPR holds
wait_row() {
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		row "$1" "$2" && return 0
		sleep 2
	done
	return 1
}

rm -rf "$FLEET_DIR"
mkdir -p "$FLEET_DIR"
for krel in $FLEET_KRELS; do
	if [ ! -f "/boot/vmlinuz-$krel" ] || [ ! -d "/usr/src/linux-headers-$krel" ]; then
		ko setup "kernel $krel: image or headers not installed"
		finish
	fi
done
if ! fleet_verifier_start; then
	ko setup "the verifier did not start" "$FLEET_DIR/verifier/verifier.log"
	finish
fi
if ! fleet_prepare >"$FLEET_DIR/prepare.log" 2>&1; then
	ko setup "cannot build the guests or their whitelist" "$FLEET_DIR/prepare.log"
	finish
fi
ok setup

for n in 1 2; do
	fleet_guest_start "$n" || ko "boot_g$n" "cannot start guest $n"
done
for n in 1 2; do
	if fleet_wait_console "$n" '@@FLEET listening' "$BOOT_TIMEOUT" &&
		fleet_enrolled_assign "$n" 120; then
		ok "enroll_g$n"
	else
		ko "enroll_g$n" "guest $n did not boot or enroll" \
			"$FLEET_DIR/g$n/console.log" "$FLEET_DIR/verifier/verifier.log"
		finish
	fi
done
for n in 1 2; do
	if fleet_wait_state "$n" trusted 120; then
		ok "trusted_g$n"
	else
		ko "trusted_g$n" "guest $n is $(fleet_state "$n"): $(reasons "$n")" \
			"$FLEET_DIR/g$n/console.log"
	fi
done
# every list the verifier asks for (FLEET_LOGS) was replayed against the
# quote
for n in 1 2; do
	if last "$n" "sorted(l['name'] for l in r.get('logs', []) if l.get('replay_matched')) == sorted('$FLEET_LOGS'.split())"; then
		ok "logs_replayed_g$n"
	else
		ko "logs_replayed_g$n" "the last result has no replayed list" "$FLEET_DIR/g$n/agent.json"
	fi
done

# the lattice each guest's slim.ko reports, in the fleet report
for n in 1 2; do
	if row "$n" 'l.get("log") == "slim" and l.get("loaded") is True and l.get("mode") == "enforce" and l.get("reloaded") is False and len(l.get("policy_digest") or "") == 64 and l.get("relabels", 0) >= 2'; then
		ok "lattice_shown_g$n"
	else
		ko "lattice_shown_g$n" "no enforcing lattice in the fleet row" "$FLEET_DIR/g$n/fleet.json"
	fi
done
# a SYSTEM task reads UNTRUSTED data: a demotion in the report, the host
# still trusted (the whitelist allows demotions)
for n in 1 2; do
	if fleet_cmd "$n" demote &&
		wait_row "$n" 'l.get("demotions", 0) >= 1 and any(d.get("cause") == "file" and d.get("path") == "/opt/input/untrusted.txt" and d.get("from", "").startswith("SYSTEM") and d.get("to", "").startswith("UNTRUSTED") for d in l.get("recent_demotions", []))' 60 &&
		sleep $((FLEET_INTERVAL * 2)) && row "$n" 'a.get("state") == "trusted"'; then
		ok "demotion_reported_g$n"
	else
		ko "demotion_reported_g$n" "guest $n is $(fleet_state "$n"): $(reasons "$n")" \
			"$FLEET_DIR/g$n/fleet.json" "$FLEET_DIR/g$n/console.log"
	fi
done

# an unknown script on guest 1; guest 2 untouched
if fleet_cmd 1 run-unknown && fleet_wait_state 1 untrusted 60 &&
	reasons 1 | grep -q '/root/unknown-tool'; then
	ok unknown_program_named
else
	ko unknown_program_named "guest 1 is $(fleet_state 1): $(reasons 1)" \
		"$FLEET_DIR/g1/console.log"
fi
sleep $((FLEET_INTERVAL * 2))
if [ "$(fleet_state 2)" = trusted ]; then
	ok others_stay_trusted
else
	ko others_stay_trusted "guest 2 is $(fleet_state 2): $(reasons 2)"
fi
if fleet_ctl fleet --check >"$FLEET_DIR/fleet.txt" 2>&1; then
	ko fleet_check_fails "attestctl fleet --check exit 0 with an untrusted guest" "$FLEET_DIR/fleet.txt"
else
	ok fleet_check_fails
fi
# the fleet report validates against its schema and names the program
fleet_ctl fleet --json >"$FLEET_DIR/fleet.json" 2>/dev/null
if python3 - "$VM_SRC/schemas/fleet.schema.json" "$FLEET_DIR/fleet.json" <<'EOF' >"$FLEET_DIR/fleet-schema.log" 2>&1; then
import glob, json, os, sys, jsonschema
from referencing import Registry, Resource
reg = Registry()
for f in glob.glob(os.path.join(os.path.dirname(sys.argv[1]), "*.json")):
    s = json.load(open(f))
    reg = reg.with_resource(s["$id"], Resource.from_contents(s))
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema, registry=reg).validate(doc)
assert "/root/unknown-tool" in json.dumps(doc), "the report does not name the program"
for a in doc["agents"]:
    assert a["lattice"] and a["lattice"]["mode"] == "enforce", "no lattice for " + a["id"]
EOF
	ok fleet_report_schema
else
	ko fleet_report_schema "the fleet report is not valid" "$FLEET_DIR/fleet-schema.log"
fi

# a kernel module on no whitelist on guest 2
if fleet_cmd 2 load-module && fleet_wait_state 2 untrusted 60 &&
	reasons 2 | grep -q '/opt/extra/dummy.ko'; then
	ok unknown_module_named
else
	ko unknown_module_named "guest 2 is $(fleet_state 2): $(reasons 2)" \
		"$FLEET_DIR/g2/console.log"
fi

# permissive_untrusted N: slim.ko stops enforcing on guest N; the host is
# untrusted, saying so
permissive_untrusted() {
	if fleet_cmd "$1" permissive &&
		wait_row "$1" 'a.get("state") == "untrusted" and l.get("mode") == "permissive"' 60 &&
		reasons "$1" | grep -q 'lattice mode changed from enforce to permissive'; then
		ok "permissive_untrusted_g$1"
	else
		ko "permissive_untrusted_g$1" "guest $1 is $(fleet_state "$1"): $(reasons "$1")" \
			"$FLEET_DIR/g$1/fleet.json" "$FLEET_DIR/g$1/console.log"
	fi
}
permissive_untrusted 2

# guest 1 reboots: same swtpm, new boot; trusted again, not enrolled again
enrolled=$(fleet_ctl agent guest-1 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["enrolled_at"])')
boots=$(fleet_ctl agent guest-1 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["boot_count"])')
# rebooted N: guest N has a boot after the $boots-th and is trusted
rebooted() {
	fleet_ctl agent "guest-$1" 2>/dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d["boot_count"] > int(sys.argv[1]) and d["state"] == "trusted" else 1)' "$boots"
}
# boot_result N EXPR: EXPR over the result of the new boot's first quote
boot_result() {
	fleet_ctl agent "guest-$1" >"$FLEET_DIR/g$1/agent.json" 2>/dev/null
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
h = sorted((e["result"] for e in d.get("history", []) if e.get("result")
            and e["result"].get("quote", {}).get("reboot")), key=lambda r: r["at"])
r = h[-1] if h else {}
sys.exit(0 if r and eval(sys.argv[2]) else 1)' "$FLEET_DIR/g$1/agent.json" "$2"
}
i=0
if fleet_cmd 1 reboot; then
	while ! rebooted 1 && [ $i -lt "$BOOT_TIMEOUT" ]; do
		sleep 2
		i=$((i + 2))
	done
fi
if rebooted 1 && boot_result 1 'all(l["start"] == 0 for l in r["logs"]) and r["state"] == "trusted"'; then
	ok reboot_reattests
else
	ko reboot_reattests "guest 1 is $(fleet_state 1): $(reasons 1)" "$FLEET_DIR/g1/console.log" "$FLEET_DIR/g1/agent.json"
fi
now=$(fleet_ctl agent guest-1 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["enrolled_at"])')
enrollments=$(grep -a -c 'enroll: guest-1: enrolled' "$FLEET_DIR/g1/console.log")
if [ -n "$enrolled" ] && [ "$enrolled" = "$now" ] && [ "$enrollments" = 1 ]; then
	ok reboot_no_reenrollment
else
	ko reboot_no_reenrollment "enrolled_at $enrolled -> $now, $enrollments enrollments" "$FLEET_DIR/g1/console.log"
fi
if boot_result 1 'r.get("uefi", {}).get("matched") is True and r["uefi"]["events"] > 0'; then
	ok firmware_log_replayed
else
	ko firmware_log_replayed "no replayed firmware log in the new boot's first result" "$FLEET_DIR/g1/agent.json"
fi

permissive_untrusted 1

# slim.ko removed and loaded again in this boot, on each guest: a new list
# that starts with a slim_gap entry; the verdict says so. Guest 1's new
# list grows past the old one's length (it was rebooted just before), so
# the agent tells the lists apart by their entry 0, not by their length.
for n in 1 2; do
	if fleet_cmd "$n" reload &&
		wait_row "$n" 'a.get("state") == "untrusted" and l.get("reloaded") is True and l.get("mode") == "enforce"' 90 &&
		reasons "$n" | grep -q 'module reloaded in this boot'; then
		ok "reload_gap_verdict_g$n"
	else
		ko "reload_gap_verdict_g$n" "guest $n is $(fleet_state "$n"): $(reasons "$n")" \
			"$FLEET_DIR/g$n/fleet.json" "$FLEET_DIR/g$n/console.log" "$FLEET_DIR/verifier/verifier.log"
	fi
done

# guest 2 powered off: it stops attesting and goes stale
fleet_guest_stop 2
fleet_row_state() {
	fleet_ctl fleet --json 2>/dev/null | python3 -c 'import json, sys
print(next((a["state"] for a in json.load(sys.stdin)["agents"] if a["id"] == sys.argv[1]), ""))' "guest-$1"
}
i=0
while [ "$(fleet_row_state 2)" != stale ] && [ $i -lt $((FLEET_INTERVAL * 10)) ]; do
	sleep 1
	i=$((i + 1))
done
if [ "$(fleet_row_state 2)" = stale ]; then
	ok powered_off_goes_stale
else
	ko powered_off_goes_stale "guest 2 is $(fleet_row_state 2) in the fleet report after it stopped"
fi
if grep -a -E -q "BUG:|Oops|WARNING:|general protection|Call Trace" "$FLEET_DIR"/g*/console.log; then
	ko kernel_log_clean "a guest kernel complained" "$FLEET_DIR/g1/console.log" "$FLEET_DIR/g2/console.log"
else
	ok kernel_log_clean
fi
finish
