#!/bin/sh
# wl_create.sh - attest-whitelist create/merge/add/remove/diff/show/validate
# and the Keylime import/export, on a fixture tree with every kind of file.
# Expected digests come from coreutils' sha256sum, not from attest.
set -u
B=${ATT_SAN_BUILD:?}
W="$B/bin/attest-whitelist"
G="$B/tools/att-imagen"
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
. "${ATT_SRC:?}/tests/lib/shtest.sh"
export SOURCE_DATE_EPOCH=1700000000

# The fixture: ELF, script, data, kernel module, symlink, hard link, fifo,
# unreadable file, name with spaces, non-UTF-8 name, excluded dirs.
R="$T/root"
mkdir -p "$R/usr/bin" "$R/etc" "$R/lib/modules" "$R/proc" "$R/tmp" "$R/var/log" "$R/opt"
cp /bin/true "$R/usr/bin/true"
printf '#!/bin/sh\necho hi\n' >"$R/usr/bin/script"
printf 'plain data\n' >"$R/etc/data.conf"
printf 'module bytes' >"$R/lib/modules/foo.ko"
printf '#!/bin/sh\n' >"$R/usr/bin/with space"
printf '#!/bin/sh\nbad\n' >"$R/usr/bin/bad$(printf '\377')name"
ln -s true "$R/usr/bin/link"
ln "$R/usr/bin/true" "$R/usr/bin/hardlink"
mkfifo "$R/usr/bin/fifo"
printf 'secret' >"$R/opt/secret"
chmod 700 "$R/opt/secret"
chmod +x "$R/opt/secret"
cp /bin/true "$R/proc/ignored"
cp /bin/true "$R/var/log/ignored"
chmod -R a+rX "$R/usr" "$R/etc" "$R/lib" "$R/proc" "$R/var"

# Run as an unprivileged user so that the 0700 file really is unreadable.
mkdir "$T/nobody"
chown nobody "$T/nobody"
expect 1 "create reports and exits 1" runuser -u nobody -- "$W" create --rootfs "$R" --policy exec -j 2 -o "$T/nobody/wl.json"
cp "$T/nobody/wl.json" "$T/wl.json"
cp "$T/err" "$T/create.err"
for what in "special file not hashed: $R/usr/bin/fifo: fifo" \
	"unreadable file: $R/opt/secret" \
	"name is not UTF-8" "bad\\\\xffname"; do
	grep -q "$what" "$T/create.err" && ok "reported: $what" || { bad "not reported: $what"; cat "$T/create.err"; }
done
python3 - "$T/wl.json" "$R" <<'PY' && ok "exactly the expected whitelist" || bad "whitelist differs from sha256sum's"
import json, subprocess, sys
wl = json.load(open(sys.argv[1]))
root = sys.argv[2]
def sha(p):
    return subprocess.run(["sha256sum", root + p], capture_output=True, check=True).stdout.split()[0].decode()
want = {p: [sha(p)] for p in ["/usr/bin/true", "/usr/bin/hardlink", "/usr/bin/script",
                             "/lib/modules/foo.ko", "/usr/bin/with space"]}
got = wl["digests"]
if got != want:
    print("got ", json.dumps(got, indent=1)); print("want", json.dumps(want, indent=1)); sys.exit(1)
m = wl["meta"]
assert m["timestamp"] == "2023-11-14T22:13:20Z" and m["hash_alg"] == "sha256" and m["generator"].startswith("attest-whitelist"), m
PY
expect 0 "validate" "$W" validate "$T/wl.json"
# Deterministic, and the same with one thread.
runuser -u nobody -- "$W" create --rootfs "$R" --policy exec -j 1 -o "$T/nobody/wl1.json" 2>/dev/null
cp "$T/nobody/wl1.json" "$T/wl1.json"
cmp -s "$T/wl.json" "$T/wl1.json" && ok "deterministic across -j" || bad "output differs between -j 1 and -j 2"
# --all (= --policy tcb, the default) takes the data file; --exclude,
# --include, --prefix, --skip-path.
"$W" create --rootfs "$R" --all -o "$T/all.json" 2>/dev/null
grep -q '"/etc/data.conf"' "$T/all.json" && ok "--all takes data files" || bad "--all"
grep -q '"/etc/data.conf"' "$T/wl.json" && bad "data file taken without --all" || ok "data file not a candidate"
grep -q 'ignored' "$T/all.json" && bad "default excludes not applied" || ok "default excludes (/proc, /var/log)"
"$W" create --rootfs "$R" --policy exec --exclude '/usr/bin/s.*' -o "$T/ex.json" 2>/dev/null
grep -q '/usr/bin/script' "$T/ex.json" && bad "--exclude" || ok "--exclude"
"$W" create --rootfs "$R" --include '/lib/.*' -o "$T/in.json" 2>/dev/null
[ "$(grep -c '"/' "$T/in.json")" -eq 1 ] && grep -q foo.ko "$T/in.json" && ok "--include" || bad "--include"
"$W" create --rootfs "$R" --prefix /srv/img --include '/srv/img/lib/.*' -o "$T/pf.json" 2>/dev/null
grep -q '"/srv/img/lib/modules/foo.ko"' "$T/pf.json" && ok "--prefix" || bad "--prefix"
"$W" create --rootfs "$R" --policy exec --skip-path /usr -o "$T/sk.json" 2>/dev/null
grep -q '/usr/' "$T/sk.json" && bad "--skip-path" || ok "--skip-path"
expect 2 "missing rootfs" "$W" create --rootfs "$T/nope"
expect 2 "no source" "$W" create

# The whitelist accepts a measurement list of the tree; a changed file fails.
python3 - "$R" "$T" <<'PY'
import hashlib, struct, sys
root, t = sys.argv[1], sys.argv[2]
def lst(files, name, change=None):
    out, p1, p256 = b"", b"\0" * 20, b"\0" * 32
    for f in files:
        data = open(root + f, "rb").read()
        if f == change:
            data += b"tampered"
        d = hashlib.sha256(data).digest()
        dng = b"sha256:\0" + d
        nng = f.encode() + b"\0"
        td = struct.pack("<I", len(dng)) + dng + struct.pack("<I", len(nng)) + nng
        t1, t256 = hashlib.sha1(td).digest(), hashlib.sha256(td).digest()
        p1 = hashlib.sha1(p1 + t1).digest()
        p256 = hashlib.sha256(p256 + t256).digest()
        out += struct.pack("<I", 10) + t1 + struct.pack("<I", 6) + b"ima-ng" + struct.pack("<I", len(td)) + td
    open(t + "/" + name + ".bin", "wb").write(out)
    open(t + "/" + name + ".pcr", "w").write("PCR-10: " + p256.hex() + "\n")
files = ["/usr/bin/true", "/usr/bin/script", "/lib/modules/foo.ko", "/usr/bin/with space"]
lst(files, "good")
lst(files, "changed", change="/usr/bin/script")
PY
expect 0 "generated whitelist accepts the tree's measurements" "$W" check "$T/wl.json" "$T/good.bin" --pcrs sha256,"$T/good.pcr"
expect 1 "a changed file is rejected" "$W" check "$T/wl.json" "$T/changed.bin" --pcrs sha256,"$T/changed.pcr"
grep -q "hash-mismatch: /usr/bin/script" "$T/out" && ok "changed file named" || bad "changed file not named"

# create --ima-log: from a known-good host's list, boot_aggregate included.
"$G" -o "$T/host.bin" -n 300 --template mixed --violation-every 97 --pcrs "$T/host" --whitelist "$T/unused.json"
expect 1 "create --ima-log (violations reported)" "$W" create --ima-log "$T/host.bin" -o "$T/fromlog.json"
grep -q "3 violations not taken" "$T/err" && ok "violations counted" || { bad "violations not counted"; cat "$T/err"; }
grep -q '"boot_aggregate"' "$T/fromlog.json" && ok "boot_aggregate taken" || bad "boot_aggregate missing"
grep -q '"kexec-cmdline"' "$T/fromlog.json" && ok "ima-buf taken" || bad "ima-buf missing"
echo '{"attest": {"violations": "allow"}}' >"$T/allowviol.json"
"$W" merge "$T/fromlog.json" "$T/allowviol.json" -o "$T/fromlog2.json" 2>/dev/null
expect 0 "host's own list passes its whitelist" "$W" check "$T/fromlog2.json" "$T/host.bin" --pcrs sha256,"$T/host-sha256.txt"

# merge / add / remove / diff / show.
expect 0 "merge" "$W" merge "$T/wl.json" "$T/all.json" -o "$T/m.json"
expect 1 "diff shows the data file" "$W" diff "$T/wl.json" "$T/m.json"
grep -q "^+ /etc/data.conf [0-9a-f]\{64\}$" "$T/out" && ok "diff line" || { bad "diff line"; cat "$T/out"; }
expect 0 "diff of equal whitelists" "$W" diff "$T/m.json" "$T/m.json"
expect 0 "add a local file" "$W" add "$T/wl.json" /bin/true -o "$T/a.json"
grep -q '"/bin/true"' "$T/a.json" && ok "added" || bad "not added"
expect 0 "add --digest" "$W" add "$T/a.json" --digest sha1:0123456789abcdef0123456789abcdef01234567 /bin/x -o "$T/a2.json"
expect 2 "add a bad digest" "$W" add "$T/a.json" --digest nothex /bin/x
expect 0 "remove" "$W" remove "$T/a2.json" /bin/x -o "$T/r.json"
expect 0 "remove undoes add" "$W" diff "$T/a.json" "$T/r.json"
expect 2 "remove an absent path" "$W" remove "$T/a.json" /nope
expect 0 "show" "$W" show "$T/wl.json"
grep -q "^paths: 5$" "$T/out" && ok "show counts" || bad "show counts"
echo '{"digests": {"/a": ["zz"]}}' >"$T/invalid.json"
expect 1 "validate refuses" "$W" validate "$T/invalid.json"
grep -q 'digests\["/a"\]\[0\]' "$T/out" && ok "validate names the field" || bad "validate message"

# Keylime both ways.
expect 0 "export legacy allowlist + excludes" "$W" export "$T/m.json" --allowlist "$T/kl.txt" --excludes "$T/kl.excl"
grep -q "^[0-9a-f]\{64\}  /usr/bin/with space$" "$T/kl.txt" && ok "sha256sum-style lines" || bad "allowlist lines"
(cd "$R" && sha256sum --quiet -c /dev/stdin) <<EOF2 && ok "sha256sum -c accepts the exported list" || bad "sha256sum -c"
$(sed "s|  /|  ./|" "$T/kl.txt")
EOF2
expect 0 "import legacy" "$W" import --allowlist "$T/kl.txt" --excludes "$T/kl.excl" -o "$T/back.json"
expect 0 "legacy round trip" "$W" diff "$T/m.json" "$T/back.json"
echo '{"excludes": ["/tmp/.*"], "attest": {"violations": "allow"}}' >"$T/ex2.json"
"$W" merge "$T/m.json" "$T/ex2.json" -o "$T/m2.json" 2>/dev/null
expect 0 "export runtime policy" "$W" export "$T/m2.json" --policy "$T/policy.json"
python3 - "$T/policy.json" <<'PY' && ok "Keylime runtime policy shape" || bad "runtime policy shape"
import json, sys
p = json.load(open(sys.argv[1]))
for k in ["meta", "release", "digests", "excludes", "keyrings", "ima", "ima-buf", "verification-keys"]:
    assert k in p, k
assert "attest" not in p
assert p["excludes"] == ["/tmp/.*"]
PY
expect 0 "import runtime policy" "$W" import --policy "$T/policy.json" -o "$T/back2.json"
expect 0 "policy round trip" "$W" diff "$T/m2.json" "$T/back2.json"
echo "wl_create: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
