#!/bin/sh
# agent_settings.sh - `attest-agent --help` (SETTINGS) and deploy/agent.conf
# name the same configuration keys, and the agent accepts each of them
# (with the value agent.conf shows) while an unknown key ("id" for
# "agent_id") is refused by name.
set -u
B=${ATT_SAN_BUILD:?}
A="$B/bin/attest-agent"
CONF="${ATT_SRC:?}/deploy/agent.conf"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$ATT_SRC/tests/lib/shtest.sh"

[ -x "$A" ] || { echo "FAIL: $A is not built"; exit 1; }
"$A" --help >"$T/help" || { echo "FAIL: attest-agent --help exited $?"; exit 1; }
# the keys --help lists: the comma-separated lines after "SETTINGS"
python3 - "$T/help" >"$T/help.keys" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
sec = t.split("\nSETTINGS\n", 1)[1].split("\n\n", 1)[0]
body = sec.split("):\n", 1)[1].split("\n    An unknown key", 1)[0]
for k in re.split(r"[,\s]+", body):
    if k:
        print(k)
PY
sort -u "$T/help.keys" -o "$T/help.keys"
# the keys agent.conf shows, set or commented out ("key = value")
sed -n 's/^#\{0,1\}\([a-z_][a-z_]*\) = .*/\1/p' "$CONF" | sort -u >"$T/conf.keys"
if [ -s "$T/help.keys" ] && diff "$T/help.keys" "$T/conf.keys" >"$T/diff"; then
	ok "--help and agent.conf list the same $(wc -l <"$T/conf.keys") keys"
else
	bad "--help and agent.conf differ (< --help, > agent.conf):"
	sed 's/^/     /' "$T/diff"
fi

# each key as agent.conf shows it: accepted (the run then fails further
# on, at the CA, the TPM or the verifier, never at the key)
while read -r k; do
	line=$(sed -n "s/^#\{0,1\}\($k = .*\)/\1/p" "$CONF" | head -n 1)
	echo "$line" >"$T/one.conf"
	timeout 60 "$A" --config "$T/one.conf" --once --verifier https://127.0.0.1:1 \
		--ca "$T/none.pem" --tcti "swtpm:host=127.0.0.1,port=1" \
		--state-dir "$T/state" >"$T/out" 2>&1
	if grep -q "unknown setting" "$T/out"; then
		bad "key $k ('$line') refused: $(head -n 1 "$T/out")"
	else
		ok "key $k accepted"
	fi
done <"$T/conf.keys"

# the negative control: an unknown key stops the agent, naming it
echo "id = web-01" >"$T/bad.conf"
expect 2 "unknown key 'id' is an error (exit 2)" \
	timeout 60 "$A" --config "$T/bad.conf" --once
if grep -q "unknown setting 'id'" "$T/err"; then ok "the error names 'id'"; else
	bad "the error does not name 'id': $(cat "$T/err")"
fi
echo "agent_settings: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
