#!/bin/sh
# wl_check_crosscheck.sh - attest-whitelist check against evmctl on the same
# generated lists: every list that replays for one replays for the other, a
# tampered list is rejected by both, and the CLI keeps its exit codes
# (0 trusted, 1 untrusted, 2 error).
set -u
B=${ATT_SAN_BUILD:?}
W="$B/bin/attest-whitelist"
G="$B/tools/att-imagen"
command -v evmctl >/dev/null || { echo "FAIL: evmctl (ima-evm-utils) missing"; exit 1; }
[ -x "$W" ] && [ -x "$G" ] || { echo "FAIL: build $B first"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect CODE DESCRIPTION COMMAND...
expect() {
	want=$1
	what=$2
	shift 2
	"$@" >"$T/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$what"; else
		bad "$what: exit $got, want $want"
		sed 's/^/     /' "$T/out" | head -20
	fi
}

pcrs="--pcrs sha1,$T/p-sha1.txt --pcrs sha256,$T/p-sha256.txt"
for spec in "ima-ng" "ima-sig" "ima" "mixed" "mixed:legacy" "mixed:viol"; do
	tmpl=${spec%%:*}
	extra=""
	evm_extra=""
	case "$spec" in
	*:legacy) extra="--legacy-rule" ;;
	*:viol) extra="--violation-every 7"; evm_extra="--ignore-violations" ;;
	esac
	for seed in 1 2; do
		n=$((200 * seed + 1))
		"$G" -o "$T/l" -n $n --seed $seed --template "$tmpl" $extra \
			--pcrs "$T/p" --whitelist "$T/wl.json" || { bad "generator"; continue; }
		# The reference must accept the list with these PCR values.
		expect 0 "evmctl accepts $spec seed $seed" \
			evmctl ima_measurement $evm_extra $pcrs "$T/l"
		if [ "${spec#*:}" = viol ]; then
			expect 1 "ours: $spec violations fail by default" \
				"$W" check "$T/wl.json" "$T/l" $pcrs
			grep -q "FAIL entry 7 pcr 10 violation" "$T/out" &&
				ok "violation named with its index" ||
				bad "violation entry 7 not named"
			expect 0 "ours: $spec replay-only" \
				"$W" check --replay-only "$T/wl.json" "$T/l" $pcrs
		else
			expect 0 "ours accepts $spec seed $seed" \
				"$W" check "$T/wl.json" "$T/l" $pcrs
		fi
		# Tamper: one byte of the last entry's path.
		python3 - "$T/l" "$T/lt" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.rfind(b'file-')
d[i] ^= 0x01
open(sys.argv[2], 'wb').write(d)
PY
		expect 1 "evmctl rejects tampered $spec" \
			evmctl ima_measurement $evm_extra $pcrs "$T/lt"
		expect 1 "ours rejects tampered $spec" \
			"$W" check --replay-only "$T/wl.json" "$T/lt" $pcrs
	done
done

# Ascii list of the same host: same verdict as the binary one.
"$G" -o "$T/a" -n 300 --template mixed --ascii --pcrs "$T/p" --whitelist "$T/wl.json"
expect 0 "ascii list replays" "$W" check "$T/wl.json" "$T/a" $pcrs
# An unknown file, named with its index and path (entry 9 is ima-sig).
"$G" -o "$T/u" -n 50 --template mixed --unknown-at 9 --pcrs "$T/p" --whitelist "$T/wl.json"
expect 1 "unknown file makes the list untrusted" "$W" check "$T/wl.json" "$T/u" $pcrs
grep -q "FAIL entry 9 pcr 10 unknown-path: /usr/lib/modules/6.1.0/file-9-" "$T/out" &&
	ok "unknown file named" || { bad "unknown file not named"; cat "$T/out"; }
expect 1 "unknown file in JSON output" "$W" check --json "$T/wl.json" "$T/u" $pcrs
python3 -c "
import json,sys
r=json.load(open('$T/out'))
assert r['result']=='untrusted', r
f=r['failures'][0]
assert f['index']==9 and f['reason']=='unknown-path' and f['path'].startswith('/usr/lib/modules/6.1.0/file-9-'), f
" && ok "JSON failure record" || bad "JSON failure record"
# Without PCRs: judged, not replayed; said so.
"$G" -o "$T/l" -n 40 --pcrs "$T/p" --whitelist "$T/wl.json"
expect 0 "no PCRs: content only" "$W" check "$T/wl.json" "$T/l"
grep -q "replay: not compared" "$T/out" && ok "says replay not compared" || bad "no replay note"
# Wrong PCR values: untrusted, not an error.
sed 's/^PCR-10: ./PCR-10: f/' "$T/p-sha256.txt" >"$T/bad256.txt"
"$G" -o "$T/l" -n 20 --pcrs "$T/p" --whitelist "$T/wl.json"
expect 1 "wrong PCR value" "$W" check "$T/wl.json" "$T/l" --pcrs sha256,"$T/bad256.txt"
grep -q "does NOT match" "$T/out" && ok "mismatch said" || bad "mismatch not said"
# The list may run ahead of the quote: PCRs of a 20-entry prefix, 25-entry
# list with an unknown entry 22 -> trusted, 1 failing unverified entry.
"$G" -o "$T/l20" -n 20 --pcrs "$T/p20" --whitelist "$T/wl20.json"
"$G" -o "$T/l25" -n 25 --unknown-at 22 --whitelist "$T/wl25.json"
expect 0 "list ahead of the quote" "$W" check "$T/wl25.json" "$T/l25" --pcrs sha256,"$T/p20-sha256.txt"
grep -q "25 read, 20 verified" "$T/out" && grep -q "unverified" "$T/out" &&
	ok "entries after the quote unverified" || { bad "unverified not reported"; cat "$T/out"; }
# Errors: exit 2 with a message.
expect 2 "missing list" "$W" check "$T/wl.json" "$T/nope"
printf 'garbage that is not a list at all\n' >"$T/g"
expect 2 "garbage list" "$W" check "$T/wl.json" "$T/g"
head -c 100 "$T/l" >"$T/trunc"
expect 2 "truncated list" "$W" check "$T/wl.json" "$T/trunc"
grep -q "truncated" "$T/out" && ok "truncation said" || bad "truncation not said"
echo '{"digests": {"/a": ["nothex"]}}' >"$T/badwl.json"
expect 2 "malformed whitelist" "$W" check "$T/badwl.json" "$T/l"
grep -q 'digests\["/a"\]\[0\]' "$T/out" && ok "field named" || bad "field not named"
expect 2 "bad usage" "$W" check "$T/wl.json"
expect 0 "help" "$W" check --help
echo "wl_check_crosscheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
