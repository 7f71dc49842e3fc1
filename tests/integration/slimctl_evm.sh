#!/bin/sh
# slimctl_evm.sh - slimctl evm-seal / evm-load against a real swtpm, and
# slimctl evm-hmac against an independent Python computation of the HMAC
# definition in docs/evm.md.
#   - a given key and a random key come back unchanged from the TPM;
#   - a changed PCR in the policy keeps the key sealed, one outside does not;
#   - every truncation and a flipped byte of the blob are refused;
#   - evm-hmac equals the Python HMAC, --write stores it, a changed label
#     or mode makes it differ.
set -u
B=${ATT_SAN_BUILD:?}
S=$B/bin/slimctl
T=$(mktemp -d)
swpid=""
trap '[ -n "$swpid" ] && kill "$swpid" 2>/dev/null; rm -rf "$T"' EXIT
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
[ -x "$S" ] || { echo "FAIL: $S not built"; exit 1; }
command -v swtpm >/dev/null || { echo "FAIL: swtpm missing"; exit 1; }
command -v tpm2_pcrextend >/dev/null || { echo "FAIL: tpm2-tools missing"; exit 1; }

port=$(python3 -c 'import socket
for p in range(30000, 40000, 2):
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", q))
        except OSError:
            ok = False
        s.close()
    if ok:
        print(p); break')
mkdir -p "$T/tpm"
swtpm socket --tpm2 --server type=tcp,port="$port" --ctrl type=tcp,port=$((port + 1)) \
	--flags not-need-init,startup-clear --tpmstate dir="$T/tpm" >"$T/swtpm.log" 2>&1 &
swpid=$!
sleep 0.5
TCTI="swtpm:host=127.0.0.1,port=$port"
export TSS2_LOG=all+none

head -c 32 /dev/urandom >"$T/k1"
if "$S" evm-seal --tcti "$TCTI" --key-file "$T/k1" --out "$T/k1.blob" 2>"$T/e" &&
	"$S" evm-load --tcti "$TCTI" --in "$T/k1.blob" --unseal-to "$T/k1.out" 2>>"$T/e" &&
	cmp -s "$T/k1" "$T/k1.out"; then
	ok "a given key is sealed and unsealed unchanged"
else
	ko "a given key round trip: $(cat "$T/e")"
fi

if "$S" evm-seal --tcti "$TCTI" --out "$T/r.blob" 2>"$T/e" &&
	"$S" evm-load --tcti "$TCTI" --in "$T/r.blob" --unseal-to "$T/r1" 2>>"$T/e" &&
	"$S" evm-load --tcti "$TCTI" --in "$T/r.blob" --unseal-to "$T/r2" 2>>"$T/e" &&
	cmp -s "$T/r1" "$T/r2" && [ "$(wc -c <"$T/r1")" = 32 ] && ! cmp -s "$T/r1" "$T/k1"; then
	ok "a random 32-byte key is sealed and unsealed"
else
	ko "random key: $(cat "$T/e")"
fi

# seal one key to 0-7 and one to 0-6, then change PCR 7
"$S" evm-seal --tcti "$TCTI" --key-file "$T/k1" --pcrs 0-6 --out "$T/k06.blob" 2>"$T/e" ||
	ko "seal to 0-6: $(cat "$T/e")"
TPM2TOOLS_TCTI=$TCTI tpm2_pcrextend \
	7:sha256=1111111111111111111111111111111111111111111111111111111111111111 >"$T/e" 2>&1 ||
	ko "tpm2_pcrextend: $(cat "$T/e")"
rm -f "$T/k1.out"
if "$S" evm-load --tcti "$TCTI" --in "$T/k1.blob" --unseal-to "$T/k1.out" 2>"$T/e"; then
	ko "the key was released after PCR 7 changed"
elif [ -e "$T/k1.out" ]; then
	ko "a key file was written although the unseal failed"
elif grep -q "PCRs differ" "$T/e"; then
	ok "a changed PCR 7 keeps the key sealed (and says why)"
else
	ko "unseal failed for another reason: $(cat "$T/e")"
fi
if "$S" evm-load --tcti "$TCTI" --in "$T/k06.blob" --unseal-to "$T/k06.out" 2>"$T/e" &&
	cmp -s "$T/k1" "$T/k06.out"; then
	ok "a key sealed to PCRs 0-6 ignores PCR 7"
else
	ko "PCRs 0-6: $(cat "$T/e")"
fi

# every truncation of the blob, and a flipped byte in its private part
len=$(wc -c <"$T/k06.blob")
bad=""
i=0
while [ "$i" -lt "$len" ]; do
	head -c "$i" "$T/k06.blob" >"$T/t.blob"
	"$S" evm-load --tcti "$TCTI" --in "$T/t.blob" --unseal-to "$T/t.out" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 1 ] || bad="$bad $i:$rc"
	i=$((i + 1))
done
[ -z "$bad" ] && ok "all $len truncations refused with exit 1" || ko "truncations:$bad"
python3 - "$T/k06.blob" "$T/flip.blob" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-5] ^= 0x40
open(sys.argv[2], "wb").write(b)
PY
if "$S" evm-load --tcti "$TCTI" --in "$T/flip.blob" --unseal-to "$T/f.out" >"$T/e" 2>&1; then
	ko "a blob with a flipped byte was unsealed"
else
	ok "a blob with a flipped byte is refused"
fi
head -c 31 /dev/urandom >"$T/short"
if "$S" evm-seal --tcti "$TCTI" --key-file "$T/short" --out "$T/x" >"$T/e" 2>&1; then
	ko "a 31-byte key file was accepted"
else
	ok "a key file that is not 32 bytes is refused"
fi

# evm-hmac against an independent computation of docs/evm.md
f=$T/file
echo data >"$f"
UUID=0123456789abcdef0123456789abcdef
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "security.slim", b"USER PUBLIC")' "$f" ||
	{ echo "FAIL: cannot set security.slim in $T"; exit 1; }
pyhmac() {
	python3 - "$1" "$2" "$3" <<'PY'
import hmac, hashlib, os, struct, sys
path, keyfile, uuid = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
m = hmac.new(open(keyfile, "rb").read(), digestmod=hashlib.sha256)
for name in ("security.slim", "security.ima", "security.capability", "security.selinux"):
    try:
        v = os.getxattr(path, name, follow_symlinks=False)
    except OSError:
        continue
    m.update(name.encode() + b"\0" + struct.pack("<I", len(v)) + v)
st = os.lstat(path)
m.update(struct.pack("<QIIIH", st.st_ino, 0, st.st_uid, st.st_gid, st.st_mode) + uuid)
print("02" + m.hexdigest())
PY
}
want=$(pyhmac "$f" "$T/k1" "$UUID")
got=$("$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 "$f" 2>"$T/e" | cut -f2)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "evm-hmac equals the independent HMAC" ||
	ko "evm-hmac '$got' != python '$want' ($(cat "$T/e"))"
out=$("$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 --write "$f" 2>&1)
case "$out" in
*"stored: match") ok "--write stores it and reads back as a match" ;;
*) ko "--write: $out" ;;
esac
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "security.slim", b"SYSTEM PUBLIC")' "$f"
out=$("$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 "$f" 2>&1)
rc=$?
case "$out" in
*"stored: differs") [ $rc = 1 ] && ok "a changed label no longer matches (exit 1)" || ko "exit $rc" ;;
*) ko "changed label: $out" ;;
esac
"$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 --write "$f" >/dev/null 2>&1
chmod 600 "$f"
out=$("$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 "$f" 2>&1)
case "$out" in
*"stored: differs") ok "a changed mode no longer matches" ;;
*) ko "changed mode: $out" ;;
esac
want=$(pyhmac "$f" "$T/k1" "$UUID")
got=$("$S" evm-hmac --key-file "$T/k1" --uuid "$UUID" --generation 0 "$f" 2>/dev/null | cut -f2)
[ "$got" = "$want" ] && ok "evm-hmac follows the new mode as the independent HMAC does" ||
	ko "after chmod: '$got' != '$want'"

echo "slimctl_evm: $pass passed, $fail failed"
[ "$fail" = 0 ]
