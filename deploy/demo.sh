#!/bin/sh
# demo.sh O - what attest can show today, stated step by step.
#
# The fleet demo (verifier, agents in qemu guests with slim.ko and swtpm)
# arrives with the agent and verifier; until then this demo shows the
# verification engine on a generated host: a trusted list, an unknown
# program that turns it untrusted (named by index and path), and a list
# edited after it was extended, caught by the replay.
set -eu
O=${1:-build}
B="$O/rel"
W="$B/bin/attest-whitelist"
G="$B/tools/att-imagen"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
step() { printf '\n==> %s\n' "$*"; }
step "A host's measurement list (2000 entries, ima-ng) and the PCR values its TPM holds"
"$G" -o "$T/host.bin" -n 2000 --template mixed --pcrs "$T/pcrs" --whitelist "$T/policy.json"
ls -l "$T/host.bin" "$T/pcrs-sha256.txt"
step "The whitelist of the known-good host (Keylime runtime-policy compatible JSON)"
head -c 400 "$T/policy.json"; echo " ..."
step "attest-whitelist check: the list replays to the PCR values and every entry is known"
"$W" check "$T/policy.json" "$T/host.bin" --pcrs sha256,"$T/pcrs-sha256.txt" || true
step "An unknown program runs (entry 1234 is not on the whitelist)"
"$G" -o "$T/host2.bin" -n 2000 --template mixed --unknown-at 1234 --pcrs "$T/pcrs2" --whitelist "$T/policy2.json"
"$W" check "$T/policy2.json" "$T/host2.bin" --pcrs sha256,"$T/pcrs2-sha256.txt" || echo "(exit $?: untrusted)"
step "Someone edits an entry after it was extended: the replay no longer reaches the PCR"
python3 -c "
d=bytearray(open('$T/host.bin','rb').read()); i=d.find(b'file-77-'); d[i]^=1
open('$T/host3.bin','wb').write(d)"
"$W" check "$T/policy.json" "$T/host3.bin" --pcrs sha256,"$T/pcrs-sha256.txt" || echo "(exit $?: untrusted)"
step "The same result as JSON, for scripts"
"$W" check --json "$T/policy2.json" "$T/host2.bin" --pcrs sha256,"$T/pcrs2-sha256.txt" | head -30 || true
step "Done. The fleet demo with qemu guests comes with the agent and verifier."
