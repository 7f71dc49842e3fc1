#!/bin/sh
# uefi_crosscheck.sh - libattest's TPM event log replay against tpm2-tools'
# tpm2_eventlog and against att-uefigen's own OpenSSL computation, on
# crypto-agile (with and without a StartupLocality event) and SHA-1-only
# logs; a damaged log is refused.
#
# tpm2_eventlog 5.4 (Debian 12) extends EV_NO_ACTION events, which the TCG
# PC Client spec says are never extended (later tpm2-tools fixed it): logs
# with such events (and the StartupLocality one) are compared with the
# generator only; the logs compared with tpm2_eventlog have none.
set -u
B=${ATT_SAN_BUILD:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v tpm2_eventlog >/dev/null || { echo "FAIL: tpm2_eventlog (tpm2-tools) missing"; exit 1; }
pass=0
fail=0
norm() {
	# tpm2_eventlog's "pcrs:" section or our YAML -> "bank pcr hex" lines
	python3 - "$1" <<'PY'
import re, sys
bank, out, inside = None, [], False
lines = open(sys.argv[1], errors="replace").read().splitlines()
if any(l.startswith("pcrs:") for l in lines):
    lines = lines[[i for i, l in enumerate(lines) if l.startswith("pcrs:")][0] + 1:]
for l in lines:
    m = re.match(r"^\s*(sha1|sha256|sha384|sha512):\s*$", l)
    if m:
        bank = m.group(1); continue
    m = re.match(r"^\s*(\d+)\s*:\s*0x([0-9A-Fa-f]+)\s*$", l)
    if m and bank:
        out.append("%s %d %s" % (bank, int(m.group(1)), m.group(2).lower()))
print("\n".join(sorted(out)))
PY
}
for args in "-n 60 --seed 1 --no-no-action" "-n 200 --seed 2 --no-no-action" \
	"-n 45 --seed 3 --sha1-only --no-no-action" "-n 7 --seed 4 --no-no-action" \
	"-n 60 --seed 5" "-n 80 --seed 6 --locality 3" "-n 30 --seed 7 --sha1-only"; do
	"$B/tools/att-uefigen" -o "$T/log" $args --pcrs "$T/want.yaml" || { fail=$((fail + 1)); continue; }
	if ! "$B/tools/att-eventlog" "$T/log" >"$T/ours.yaml"; then
		echo "FAIL att-eventlog refused a good log ($args)"
		fail=$((fail + 1))
		continue
	fi
	norm "$T/ours.yaml" >"$T/a"
	norm "$T/want.yaml" >"$T/c"
	ref="generator"
	cp "$T/c" "$T/b"
	case "$args" in
	*--no-no-action*)
		tpm2_eventlog "$T/log" >"$T/ref.yaml" 2>&1 || { echo "FAIL tpm2_eventlog refused ($args)"; fail=$((fail + 1)); continue; }
		norm "$T/ref.yaml" >"$T/b"
		ref="tpm2_eventlog == generator"
		;;
	esac
	if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b" && cmp -s "$T/a" "$T/c"; then
		echo "ok   $args: libattest == $ref ($(wc -l <"$T/a") PCR values)"
		pass=$((pass + 1))
	else
		echo "FAIL $args: replays differ"
		diff "$T/a" "$T/b" | head
		diff "$T/a" "$T/c" | head
		fail=$((fail + 1))
	fi
	# Cut the last event short: both refuse.
	size=$(stat -c %s "$T/log")
	head -c $((size - 3)) "$T/log" >"$T/cut"
	if "$B/tools/att-eventlog" "$T/cut" >/dev/null 2>"$T/err"; then
		echo "FAIL truncated log accepted ($args)"
		fail=$((fail + 1))
	elif grep -q "truncated" "$T/err"; then
		echo "ok   truncated log refused: $(cat "$T/err")"
		pass=$((pass + 1))
	else
		echo "FAIL truncated log: unclear message: $(cat "$T/err")"
		fail=$((fail + 1))
	fi
done
echo "uefi_crosscheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
