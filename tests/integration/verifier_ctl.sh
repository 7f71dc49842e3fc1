#!/bin/sh
# verifier_ctl.sh - attestctl against the real attest-verifier (release
# build, SQLite, throwaway PKI): every command, the exit codes a script
# relies on, and `fleet --json` printing exactly a report that validates
# against schemas/fleet.schema.json.
set -u
B=${ATT_BUILD:?ATT_BUILD must name the release build}
S=${ATT_SRC:?}
T=$(mktemp -d /tmp/att-vctl-XXXXXX)
VPID=
cleanup() {
	[ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*"
	[ -f "$T/verifier.log" ] && tail -20 "$T/verifier.log"
	exit 1
}

sh "$S/deploy/pki.sh" init "$T" || fail "pki.sh"
"$B/bin/attest-verifier" --listen 127.0.0.1:0 --port-file "$T/port" \
	--tls-cert "$T/server.pem" --tls-key "$T/server.key" \
	--admin-ca "$T/admin-ca.pem" --agent-ca "$T/agent-ca.pem" \
	--database "sqlite:$T/v.db" 2>"$T/verifier.log" &
VPID=$!
i=0
while [ ! -s "$T/port" ]; do
	kill -0 "$VPID" 2>/dev/null || fail "attest-verifier did not start"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "attest-verifier never wrote its port"
	sleep 0.01
done
PORT=$(cat "$T/port")
export ATTESTCTL_URL="https://127.0.0.1:$PORT"
export ATTESTCTL_CACERT="$T/server-ca.pem"
export ATTESTCTL_CERT="$T/admin.pem"
export ATTESTCTL_KEY="$T/admin.key"
CTL="$B/bin/attestctl"

expect() { # code command...
	want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" -eq "$want" ] || {
		cat "$T/out" "$T/err"
		fail "exit $got, wanted $want: $*"
	}
}

expect 0 "$CTL" --help
grep -q '^EXIT STATUS' "$T/out" || fail "--help has no EXIT STATUS"
expect 2 "$CTL" frobnicate
expect 2 "$CTL" --url http://127.0.0.1:$PORT fleet
expect 3 "$CTL" --url https://127.0.0.1:1 fleet
# Roles: no certificate, a rogue CA's "admin".
expect 5 env ATTESTCTL_CERT= ATTESTCTL_KEY= "$CTL" fleet
grep -q unauthenticated "$T/err" || fail "no error code printed"
expect 5 "$CTL" --cert "$T/rogue.pem" --key "$T/rogue.key" fleet

# Whitelists.
A=$(printf A | sha256sum | cut -d' ' -f1)
printf '{"digests": {"/usr/bin/a": ["%s"]}}\n' "$A" >"$T/wl.json"
printf '{"digests": {"/usr/bin/a": ["zz"]}}\n' >"$T/bad.json"
printf '%s  /usr/bin/a\n' "$A" >"$T/allow.txt"
printf '{"digests": ' >"$T/broken.json"
expect 0 "$CTL" whitelists create base "$T/wl.json"
expect 5 "$CTL" whitelists create base "$T/wl.json"
expect 5 "$CTL" whitelists update base "$T/bad.json"
grep -q invalid_whitelist "$T/err" || fail "422 not reported"
expect 2 "$CTL" whitelists update base "$T/broken.json"
expect 2 "$CTL" whitelists update base "$T/missing.json"
expect 0 "$CTL" whitelists update base "$T/allow.txt" --legacy
expect 0 "$CTL" whitelists get base
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == 2 and d["format"] == "legacy"' "$T/out" || fail "whitelist get"
expect 0 "$CTL" whitelists get base 1
expect 4 "$CTL" whitelists get base 7
expect 4 "$CTL" whitelists get nothing
expect 0 "$CTL" whitelists list
expect 0 "$CTL" token 600
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["token"]) == 64' "$T/out" || fail "token"

# An agent as enrollment and an untrusted verdict leave it.
now=$(date +%s)
sqlite3 "$T/v.db" "INSERT INTO agents (id, rev, state, reset_count, restart_count, boot_count, enrolled_at, last_attest, last_result) VALUES ('host-1', 1, 'untrusted', 1, 0, 1, $now, $now, '{\"state\":\"untrusted\",\"reasons\":[\"unknown-path: /usr/bin/evil\"]}')" ||
	fail "sqlite3 insert"
expect 0 "$CTL" agents list
expect 0 "$CTL" agents assign host-1 base
expect 4 "$CTL" agents get host-9
expect 5 "$CTL" agents assign host-1 nothing
expect 5 "$CTL" whitelists delete base
grep -q in_use "$T/err" || fail "in-use whitelist deleted"

expect 0 "$CTL" fleet
grep -q '^AGENT' "$T/out" || fail "fleet table header"
grep -q '^host-1 .*untrusted .*base@newest .*unknown-path: /usr/bin/evil' "$T/out" || {
	cat "$T/out"
	fail "fleet table row"
}
grep -q '^1 agents: 0 trusted, 1 untrusted' "$T/out" || fail "fleet totals"
expect 0 "$CTL" fleet --json
# Exactly what the verifier sent, and valid.
curl -s --cacert "$T/server-ca.pem" --cert "$T/admin.pem" --key "$T/admin.key" \
	"$ATTESTCTL_URL/v1/fleet" >"$T/curl.json" || fail "curl"
python3 - "$S/schemas/fleet.schema.json" "$T/out" "$T/curl.json" <<'PY' || fail "fleet --json"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(doc)
other = json.load(open(sys.argv[3]))
doc.pop("generated_at"); other.pop("generated_at")
assert doc == other, "fleet --json differs from the verifier's report"
PY
expect 0 "$CTL" agents delete host-1
expect 0 "$CTL" whitelists delete base
expect 4 "$CTL" agents delete host-1
kill "$VPID" && wait "$VPID"
st=$?
VPID=
[ "$st" -eq 0 ] || fail "attest-verifier exited $st on SIGTERM"
echo "verifier_ctl: ok"
