#!/bin/sh
# wl_deb.sh - attest-whitelist create --deb, --initrd, --apt-repo,
# --dpkg-root on real Debian packages (apt-get download, cached under the
# build dir) and on hostile ones crafted here. Expected digests come from
# dpkg-deb --fsys-tarfile | tar -x, cpio -i and sha256sum, not from attest.
set -u
B=${ATT_SAN_BUILD:?}
W="$B/bin/attest-whitelist"
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
. "${ATT_SRC:?}/tests/lib/shtest.sh"
export SOURCE_DATE_EPOCH=1700000000
D="$B/../test-debs"
. "$ATT_SRC/tests/lib/debs.sh"
att_fetch_debs "$D" coreutils bash dash hello bzip2 libc-bin || { bad "apt-get download failed"; exit 1; }
DEBS=$(ls "$D"/*.deb)

# sha256sum of every regular file of the packages as dpkg would install
# them, with /bin, /sbin, /lib* under /usr (Debian 12's merged /usr).
# expect_tree DIR OUT [nomerge]
expect_tree() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import json, os, subprocess, sys
root, out, nomerge = sys.argv[1], sys.argv[2], sys.argv[3]
want = {}
for r, dirs, files in os.walk(root):
    for f in files:
        p = os.path.join(r, f)
        if os.path.islink(p):
            continue
        rel = p[len(root):]
        if not nomerge:
            for a in ("/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"):
                if rel.startswith(a):
                    rel = "/usr" + rel
        h = subprocess.run(["sha256sum", p], capture_output=True, check=True).stdout.split()[0].decode()
        want.setdefault(rel, [])
        if h not in want[rel]:
            want[rel].append(h)
for k in want:
    want[k].sort()
json.dump(want, open(out, "w"), sort_keys=True)
PY
}
with_scripts() { # WANT.json: adds the scripts of $T/scripts.txt
python3 - "$1" "$T/scripts.txt" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    pkg, name, h = line.split()
    for path in ("/var/lib/dpkg/info/%s.%s" % (pkg, name), "/var/lib/dpkg/tmp.ci/" + name):
        want.setdefault(path, [])
        if h not in want[path]:
            want[path].append(h)
            want[path].sort()
json.dump(want, open(sys.argv[1], "w"), sort_keys=True)
PY
}
same_digests() { # WL EXPECTED
	python3 - "$1" "$2" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))["digests"]
want = json.load(open(sys.argv[2]))
if got != want:
    g, w = set(got), set(want)
    print("only in attest:", sorted(g - w)[:10]); print("only expected:", sorted(w - g)[:10])
    print("differ:", [k for k in g & w if got[k] != want[k]][:10])
    sys.exit(1)
PY
}

# 1. Real packages, every file, cross-checked with dpkg-deb + tar + sha256sum.
mkdir "$T/x"
for f in $DEBS; do dpkg-deb --fsys-tarfile "$f" | tar -x -C "$T/x"; done
expect_tree "$T/x" "$T/want.json"
# and the maintainer scripts, as dpkg-deb -e extracts them, under the names
# dpkg runs them by: /var/lib/dpkg/info/PKG[:ARCH].NAME and tmp.ci/NAME
mkdir "$T/ctl"
for f in $DEBS; do
	c="$T/ctl/$(basename "$f")"
	dpkg-deb -e "$f" "$c"
	p=$(dpkg-deb -f "$f" Package)
	[ "$(dpkg-deb -f "$f" Multi-Arch)" = same ] && p="$p:$(dpkg-deb -f "$f" Architecture)"
	for n in preinst postinst prerm postrm config; do
		[ -f "$c/$n" ] && echo "$p $n $(sha256sum "$c/$n" | cut -d' ' -f1)"
	done
done >"$T/scripts.txt"
with_scripts "$T/want.json"
[ -s "$T/scripts.txt" ] && ok "the packages have maintainer scripts ($(wc -l <"$T/scripts.txt"))" || bad "no maintainer script in the test packages"
expect 0 "create --deb (6 real packages)" "$W" create --deb $DEBS -j 2 -o "$T/deb.json"
same_digests "$T/deb.json" "$T/want.json" && ok "every file, digests as dpkg-deb | tar | sha256sum" || bad "digests differ from dpkg-deb's"
grep -q "6 archives" "$T/err" && grep -q "hard links" "$T/err" && ok "summary line" || { bad "summary"; cat "$T/err"; }
grep -q '"/usr/bin/ls"' "$T/deb.json" && ok "/bin/ls listed as /usr/bin/ls (usr-merge)" || bad "usr-merge"
grep -q '"/bin/ls"' "$T/deb.json" && bad "/bin/ls listed" || ok "/bin/ls not listed"
# bzip2's /bin/bzcat and /bin/bzip2 are hard links to /bin/bunzip2
python3 - "$T/deb.json" <<'PY' && ok "hard links share the digest" || bad "hard links"
import json, sys
d = json.load(open(sys.argv[1]))["digests"]
assert d["/usr/bin/bzcat"] == d["/usr/bin/bunzip2"] == d["/usr/bin/bzip2"], d.get("/usr/bin/bzcat")
PY
expect 0 "create --deb --no-usrmerge" "$W" create --deb $DEBS --no-usrmerge -o "$T/nomerge.json"
expect_tree "$T/x" "$T/want-nomerge.json" nomerge
with_scripts "$T/want-nomerge.json"
same_digests "$T/nomerge.json" "$T/want-nomerge.json" && ok "--no-usrmerge: paths as packaged" || bad "--no-usrmerge"
expect 0 "deterministic across -j" "$W" create --deb $DEBS -j 1 -o "$T/deb1.json"
cmp -s "$T/deb.json" "$T/deb1.json" && ok "same output with -j 1" || bad "output differs between -j 1 and -j 2"
expect 0 "--policy exec" "$W" create --policy exec --deb $DEBS -o "$T/exec.json"
python3 - "$T/exec.json" "$T/deb.json" <<'PY' && ok "--policy exec: executables and libraries only" || bad "--policy exec"
import json, sys
e = json.load(open(sys.argv[1]))["digests"]; a = json.load(open(sys.argv[2]))["digests"]
assert "/usr/bin/ls" in e and "/usr/lib/x86_64-linux-gnu/libc.so.6" not in a or True
assert "/usr/bin/ls" in e and "/usr/bin/bash" in e
assert "/usr/share/doc/hello/copyright" in a and "/usr/share/doc/hello/copyright" not in e
assert set(e) < set(a)
PY
expect 0 "validate" "$W" validate "$T/deb.json"

# 2. The cache: a second run reads no package.
expect 0 "create --cache (cold)" "$W" create --deb $DEBS --cache "$T/cache" -o "$T/c1.json"
grep -q "(0 from the cache, 6 read" "$T/err" && ok "cold cache: 6 read" || { bad "cold cache"; cat "$T/err"; }
expect 0 "create --cache (warm)" "$W" create --deb $DEBS --cache "$T/cache" -o "$T/c2.json"
grep -q "(6 from the cache, 0 read" "$T/err" && ok "warm cache: nothing read" || { bad "warm cache"; cat "$T/err"; }
cmp -s "$T/c1.json" "$T/c2.json" && cmp -s "$T/c1.json" "$T/deb.json" && ok "cached result identical" || bad "cache changes the result"
expect 0 "--policy exec from the cache" "$W" create --policy exec --deb $DEBS --cache "$T/cache" -o "$T/c3.json"
cmp -s "$T/c3.json" "$T/exec.json" && ok "selection applies to cached entries" || bad "cached selection"
printf 'garbage' >"$(ls "$T"/cache/sha256/deb-*.json | head -n 1)"
expect 0 "a corrupt cache entry is read again" "$W" create --deb $DEBS --cache "$T/cache" -o "$T/c4.json"
grep -q "(5 from the cache, 1 read" "$T/err" && cmp -s "$T/c4.json" "$T/deb.json" && ok "corrupt entry replaced" || { bad "corrupt cache entry"; cat "$T/err"; }

# 3. Hostile packages: an error naming the problem (exit 2), nothing written.
python3 - "$T" <<'PY'
import io, lzma, os, sys, tarfile
t = sys.argv[1]
def ar(members, pad=True):
    out = b"!<arch>\n"
    for name, data, *size in members:
        sz = size[0] if size else len(data)
        out += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644", sz)
        out += data
        if len(data) % 2 and pad:
            out += b"\n"
    return out
def tar(entries, comp="xz"):
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for e in entries:
            ti = tarfile.TarInfo(e["name"]); ti.mode = e.get("mode", 0o755)
            if "link" in e:
                ti.type = tarfile.LNKTYPE; ti.linkname = e["link"]; tf.addfile(ti)
            elif "sym" in e:
                ti.type = tarfile.SYMTYPE; ti.linkname = e["sym"]; tf.addfile(ti)
            else:
                data = e.get("data", b"x"); ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
    raw = bio.getvalue()
    return lzma.compress(raw) if comp == "xz" else raw
ctl = tar([{"name": "./control", "data": b"Package: evil\n"}])
def deb(data, name="data.tar.xz", **kw):
    return ar([("debian-binary", b"2.0\n"), ("control.tar.xz", ctl), (name, data)], **kw)
good = tar([{"name": "./usr/bin/ok", "data": b"#!/bin/sh\n"}])
cases = {
    "good": deb(good),
    "absolute": deb(tar([{"name": "/etc/evil", "data": b"x"}])),
    "dotdot": deb(tar([{"name": "./usr/../../etc/evil", "data": b"x"}])),
    "hardlink-out": deb(tar([{"name": "./usr/bin/a", "link": "../../etc/shadow"}])),
    "hardlink-none": deb(tar([{"name": "./usr/bin/a", "link": "./usr/bin/nothere"}])),
    "twice": deb(tar([{"name": "./usr/bin/a", "data": b"1"}, {"name": "./usr/bin/a", "data": b"2"}])),
    "badxz": deb(b"\xfd7zXZ\x00" + b"\x01" * 200),
    "huge-member": ar([("debian-binary", b"2.0\n"), ("control.tar.xz", ctl), ("data.tar.xz", b"", 9999999999)]),
    "not-ar": b"PK\x03\x04 not a deb at all",
    "no-data": ar([("debian-binary", b"2.0\n"), ("control.tar.xz", ctl)]),
    "version3": ar([("debian-binary", b"3.0\n"), ("control.tar.xz", ctl), ("data.tar.xz", good)]),
    "extra-member": ar([("debian-binary", b"2.0\n"), ("evil", b"x"), ("control.tar.xz", ctl), ("data.tar.xz", good)]),
}
for k, v in cases.items():
    open(os.path.join(t, k + ".deb"), "wb").write(v)
full = cases["good"]
open(os.path.join(t, "truncated.deb"), "wb").write(full[:len(full) - 40])
open(os.path.join(t, "truncated-hdr.deb"), "wb").write(full[:8 + 60 + 4 + 30])
# a tar whose file data is cut short inside an intact ar member
raw = tar([{"name": "./usr/bin/big", "data": os.urandom(20000)}], comp=None)
open(os.path.join(t, "tar-cut.deb"), "wb").write(deb(raw[:10000], name="data.tar"))
PY
python3 - "$T" <<'PY'
import io, lzma, os, sys, tarfile
t = sys.argv[1]
def member(name, data):
    return b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644", len(data)) + data + (b"\n" if len(data) % 2 else b"")
bio = io.BytesIO()
with tarfile.open(fileobj=bio, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tf:
    for name, data in (("./usr/bin/bad\udcffname", b"#!/bin/sh\n"), ("./usr/bin/fine", b"#!/bin/sh\n")):
        ti = tarfile.TarInfo(name); ti.mode = 0o755; ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
cbio = io.BytesIO()
tarfile.open(fileobj=cbio, mode="w", format=tarfile.GNU_FORMAT).close()
ctl = lzma.compress(cbio.getvalue())
open(os.path.join(t, "nonutf8.deb"), "wb").write(b"!<arch>\n" + member("debian-binary", b"2.0\n") +
    member("control.tar.xz", ctl) + member("data.tar.xz", lzma.compress(bio.getvalue())))
PY
expect 1 "a name that is not UTF-8: reported, exit 1" "$W" create --deb "$T/nonutf8.deb" -o "$T/nu.json"
grep -q 'nonutf8.deb: name is not UTF-8.*/usr/bin/bad\\xffname' "$T/err" && grep -q '"/usr/bin/fine"' "$T/nu.json" &&
	ok "non-UTF-8 name reported escaped, the rest written" || { bad "non-UTF-8 name"; cat "$T/err"; }
# maintainer scripts: a Multi-Arch: same package's are dpkg's PKG:ARCH.NAME;
# a control member that dpkg could not read fails the package
mkdir -p "$T/ma/DEBIAN" "$T/ma/usr/bin"
printf '#!/bin/sh\necho ok\n' >"$T/ma/usr/bin/ma-tool"
printf '#!/bin/sh\nset -e\necho configured\n' >"$T/ma/DEBIAN/postinst"
chmod 755 "$T/ma/usr/bin/ma-tool" "$T/ma/DEBIAN/postinst"
printf 'Package: attest-ma\nVersion: 1\nArchitecture: amd64\nMulti-Arch: same\nMaintainer: t <t@example.org>\nDescription: t\n' >"$T/ma/DEBIAN/control"
dpkg-deb -Zxz --root-owner-group --build "$T/ma" "$T/ma.deb" >/dev/null
expect 0 "a Multi-Arch: same package with a postinst" "$W" create --deb "$T/ma.deb" -o "$T/ma.json"
python3 - "$T/ma.json" "$(sha256sum "$T/ma/DEBIAN/postinst" | cut -d' ' -f1)" <<'PY' && ok "its postinst as info/attest-ma:amd64.postinst and tmp.ci/postinst, dpkg-deb's bytes" || { bad "Multi-Arch postinst"; cat "$T/ma.json"; }
import json, sys
d = json.load(open(sys.argv[1]))["digests"]
assert d["/var/lib/dpkg/info/attest-ma:amd64.postinst"] == [sys.argv[2]], d
assert d["/var/lib/dpkg/tmp.ci/postinst"] == [sys.argv[2]], d
PY
python3 - "$T" <<'PY'
import io, lzma, os, sys, tarfile
t = sys.argv[1]
def member(name, data):
    return b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644", len(data)) + data + (b"\n" if len(data) % 2 else b"")
def tar(files):
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, data in files:
            ti = tarfile.TarInfo(name); ti.mode = 0o755; ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
    return lzma.compress(bio.getvalue())
data = tar([("./usr/bin/x", b"#!/bin/sh\n")])
for name, ctl in (("ctl-nopkg", tar([("./postinst", b"#!/bin/sh\n"), ("./control", b"Version: 1\n")])),
                  ("ctl-badpkg", tar([("./postinst", b"#!/bin/sh\n"), ("./control", b"Package: ../../etc/x\n")])),
                  ("ctl-dotdot", tar([("../postinst", b"#!/bin/sh\n")])),
                  ("ctl-corrupt", b"\xfd7zXZ\x00garbage")):
    open(os.path.join(t, name + ".deb"), "wb").write(b"!<arch>\n" + member("debian-binary", b"2.0\n") +
        member("control.tar.xz", ctl) + member("data.tar.xz", data))
PY
expect 0 "a crafted good package" "$W" create --deb "$T/good.deb" -o "$T/good.json"
grep -q '"/usr/bin/ok"' "$T/good.json" && ok "crafted package listed" || bad "crafted package"
for c in absolute:"absolute or with '..'" dotdot:"absolute or with '..'" hardlink-out:"hard link to no earlier file" \
	hardlink-none:"hard link to no earlier file" twice:"listed twice" badxz:"data member corrupt" \
	huge-member:"ar member over the cap" not-ar:"not an ar archive" no-data:"no data.tar member" \
	version3:"not a version 2 package" extra-member:"unexpected ar member" truncated:"cut short" \
	truncated-hdr:"cut short" tar-cut:"data member" ctl-nopkg:"no valid Package field" \
	ctl-badpkg:"no valid Package field" ctl-dotdot:"absolute or with '..'" \
	ctl-corrupt:"control member corrupt"; do
	name=${c%%:*}
	msg=${c#*:}
	rm -f "$T/h.json"
	expect 2 "hostile $name: exit 2" "$W" create --deb "$T/good.deb" "$T/$name.deb" -o "$T/h.json"
	grep -q "$name.deb: .*$msg" "$T/err" && ok "hostile $name: says '$msg'" || { bad "hostile $name: message"; cat "$T/err"; }
	[ ! -e "$T/h.json" ] && ok "hostile $name: nothing written" || bad "hostile $name: output written"
done

mkfifo "$T/fifo.deb"
expect 2 "a fifo given as a package" "$W" create --deb "$T/fifo.deb" -o "$T/h.json"
grep -q "fifo.deb: not a regular file" "$T/err" && ok "a fifo is not read (no hang)" || bad "fifo as .deb"

# 4. --rootfs: a fifo or socket is reported and counted, exit 0; the
# default selection (--policy tcb) takes every regular file.
mkdir -p "$T/r/usr/bin" "$T/r/etc"
cp /bin/true "$T/r/usr/bin/"
printf 'data\n' >"$T/r/etc/conf"
mkfifo "$T/r/usr/bin/fifo"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$T/r/etc/sock"
expect 0 "rootfs with a fifo and a socket: exit 0" "$W" create --rootfs "$T/r" -o "$T/r.json"
grep -q "special file not hashed: .*fifo: fifo" "$T/err" && grep -q "sock: socket" "$T/err" && grep -q "2 special" "$T/err" &&
	ok "fifo and socket reported and counted" || { bad "fifo/socket not reported"; cat "$T/err"; }
grep -q '"/etc/conf"' "$T/r.json" && ok "default policy tcb takes data files" || bad "default selection"
expect 0 "rootfs --policy exec" "$W" create --rootfs "$T/r" --policy exec -o "$T/r2.json"
grep -q '"/etc/conf"' "$T/r2.json" && bad "--policy exec took a data file" || ok "--policy exec leaves data files out"
expect 2 "--policy nonsense" "$W" create --rootfs "$T/r" --policy nonsense

# 5. --initrd: an early uncompressed archive then a compressed one (gzip,
# xz, zstd, lz4 legacy as the kernel takes them), as GNU cpio -i unpacks
# them; the image's own bin -> usr/bin symlink is followed, as d_path does.
mkdir -p "$T/i/usr/bin" "$T/i/scripts" "$T/i/conf" "$T/e/kernel/x86/microcode"
ln -s usr/bin "$T/i/bin"
cp /bin/true "$T/i/usr/bin/true"
ln "$T/i/usr/bin/true" "$T/i/usr/bin/hl"
printf '#!/bin/sh\nexec /sbin/init\n' >"$T/i/init"
printf 'local_mount_root() { :; }\n' >"$T/i/scripts/local"
printf 'MODULES=most\n' >"$T/i/conf/initramfs.conf"
printf 'via the symlink\n' >"$T/i/usr/bin/x"
printf 'microcode' >"$T/e/kernel/x86/microcode/GenuineIntel.bin"
(cd "$T/e" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) >"$T/early.cpio"
# bin/x is stored under its name through the symlink
(cd "$T/i" && { find . ! -path ./usr/bin/x | LC_ALL=C sort; echo bin/x; } | cpio --quiet -o -H newc) >"$T/main.cpio"
mkdir "$T/iu"
(cd "$T/iu" && cpio --quiet -id <"$T/early.cpio" && cpio --quiet -id <"$T/main.cpio")
python3 - "$T/iu" "$T/want-initrd.json" <<'PY'
import json, os, subprocess, sys
root, out = sys.argv[1], sys.argv[2]
want = {}
for r, dirs, files in os.walk(root):
    for f in files:
        p = os.path.join(r, f)
        if os.path.islink(p):
            continue
        rel = os.path.realpath(p)[len(os.path.realpath(root)):]
        want[rel] = [subprocess.run(["sha256sum", p], capture_output=True, check=True).stdout.split()[0].decode()]
json.dump(want, open(out, "w"))
PY
for c in gzip "xz --check=crc32" zstd "lz4 -l" cat; do
	n=${c%% *}
	{ cat "$T/early.cpio"; $c <"$T/main.cpio"; } >"$T/initrd-$n"
	expect 0 "create --initrd (early cpio + $n)" "$W" create --initrd "$T/initrd-$n" -o "$T/ird-$n.json"
	same_digests "$T/ird-$n.json" "$T/want-initrd.json" && ok "initrd $n: as cpio -i unpacks it" || bad "initrd $n digests"
done
grep -q '"/usr/bin/x"' "$T/ird-gzip.json" && grep -q '"/kernel/x86/microcode/GenuineIntel.bin"' "$T/ird-gzip.json" &&
	grep -q '"/init"' "$T/ird-gzip.json" && ok "initrd paths: /init, /usr/bin/x (stored as bin/x), the microcode" || bad "initrd paths"
# the host's own initramfs (linux-image-amd64 makes one), against unmkinitramfs
I=$(ls /boot/initrd.img-* 2>/dev/null | head -n 1)
if [ -n "$I" ]; then
	mkdir "$T/host-ird"
	unmkinitramfs "$I" "$T/host-ird"
	# unmkinitramfs puts early and main archives in early/ and main/ when there are both
	python3 - "$T/host-ird" "$T/want-host.json" <<'PY'
import json, os, hashlib, sys
root, out = sys.argv[1], sys.argv[2]
tops = [os.path.join(root, d) for d in ("early", "early2", "early3", "main") if os.path.isdir(os.path.join(root, d))] or [root]
want = {}
for top in tops:
    for r, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(r, f)
            if os.path.islink(p):
                continue
            rel = os.path.realpath(p)[len(os.path.realpath(top)):]
            want[rel] = [hashlib.sha256(open(p, "rb").read()).hexdigest()]
json.dump(want, open(out, "w"))
PY
	expect 0 "create --initrd $I" "$W" create --initrd "$I" -o "$T/host-ird.json"
	same_digests "$T/host-ird.json" "$T/want-host.json" && ok "host initramfs as unmkinitramfs unpacks it" || bad "host initramfs"
else
	bad "no /boot/initrd.img-* (deploy/install-deps.sh installs linux-image-amd64)"
fi
python3 - "$T" <<'PY'
import gzip, os, sys
t = sys.argv[1]
def ent(name, data=b"", mode=0o100644, ino=1, nlink=1):
    n = name.encode() + b"\0"
    h = b"070701" + b"".join(b"%08X" % v for v in (ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(n), 0))
    out = h + n
    out += b"\0" * ((4 - len(out) % 4) % 4)
    out += data + b"\0" * ((4 - len(data) % 4) % 4)
    return out
trailer = ent("TRAILER!!!")
good = ent("init", b"#!/bin/sh\n", 0o100755) + trailer
cases = {
    "dotdot": ent("../etc/evil", b"x") + trailer,
    "absolute": ent("/etc/evil", b"x") + trailer,
    "no-trailer": ent("init", b"#!/bin/sh\n"),
    "cut-data": (ent("init", b"#!/bin/sh\n" * 10) + trailer)[:140],
    "bad-hex": good.replace(b"070701000000", b"07070100ZZ00", 1),
    "huge-name": b"070701" + b"%08X" % 1 + b"%08X" % 0o100644 + b"0" * 72 + b"%08X" % 0x7FFFFFFF + b"0" * 8 + b"init",
    "garbage": good + b"this is no compression at all",
    "bad-gzip": good + gzip.compress(ent("x", b"y") + trailer)[:30],
}
for k, v in cases.items():
    open(os.path.join(t, "ird-" + k), "wb").write(v)
PY
for c in dotdot:"absolute or with '..'" absolute:"absolute or with '..'" no-trailer:"cut short" cut-data:"cut short" \
	bad-hex:"bad hex" huge-name:"bad cpio name size" garbage:"neither a cpio archive nor a known compression" bad-gzip:"offset"; do
	name=${c%%:*}
	msg=${c#*:}
	rm -f "$T/h.json"
	expect 2 "hostile initrd $name: exit 2" "$W" create --initrd "$T/ird-$name" -o "$T/h.json"
	grep -q "ird-$name: .*$msg" "$T/err" && ok "hostile initrd $name: says '$msg'" || { bad "hostile initrd $name: message"; cat "$T/err"; }
	[ ! -e "$T/h.json" ] && ok "hostile initrd $name: nothing written" || bad "hostile initrd $name: output written"
done

# 6. --apt-repo: a local repository signed here with gpg; two versions of
# a package built with dpkg-deb; every version listed, nothing taken
# unverified.
export GNUPGHOME="$T/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg -q --batch --passphrase '' --quick-gen-key "attest test <test@example.org>" ed25519 sign never 2>/dev/null
gpg -q --batch --passphrase '' --quick-gen-key "someone else <else@example.org>" ed25519 sign never 2>/dev/null
gpg -q --export "test@example.org" >"$T/key.gpg"
gpg -q --export "else@example.org" >"$T/other.gpg"
mkdir -p "$T/repo/pool"
cp $DEBS "$T/repo/pool/"
for v in 1.0 1.1; do
	mkdir -p "$T/demo-$v/DEBIAN" "$T/demo-$v/usr/bin"
	printf 'Package: attest-demo\nVersion: %s\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: demo\n' "$v" >"$T/demo-$v/DEBIAN/control"
	printf '#!/bin/sh\necho %s\n' "$v" >"$T/demo-$v/usr/bin/attest-demo"
	chmod 755 "$T/demo-$v/usr/bin/attest-demo"
	dpkg-deb -Zxz --root-owner-group --build "$T/demo-$v" "$T/repo/pool/attest-demo_${v}_all.deb" >/dev/null
done
sign_repo() { # DIR: Packages(.xz), Release, InRelease
	(cd "$1" && dpkg-scanpackages --multiversion pool /dev/null 2>/dev/null >Packages && xz -kf Packages &&
		{
			printf 'Origin: attest-test\nSuite: test\nSHA256:\n'
			for f in Packages Packages.xz; do printf ' %s %s %s\n' "$(sha256sum $f | cut -d' ' -f1)" "$(stat -c %s $f)" "$f"; done
		} >Release &&
		rm -f InRelease && gpg -q --batch --yes -u test@example.org --clearsign -o InRelease Release)
}
sign_repo "$T/repo"
expect 0 "create --apt-repo (flat, InRelease)" "$W" create --apt-repo "$T/repo" --keyring "$T/key.gpg" -j 2 -o "$T/apt.json"
grep -q "1 signed indices, 8 packages (every version), 8 .deb files" "$T/err" && ok "index summary" || { bad "index summary"; cat "$T/err"; }
expect 0 "the same packages by --deb" "$W" create --deb "$T"/repo/pool/*.deb -o "$T/apt-deb.json"
expect 0 "--apt-repo lists what --deb lists" "$W" diff "$T/apt.json" "$T/apt-deb.json"
python3 - "$T/apt.json" <<'PY' && ok "both versions of attest-demo listed" || bad "versions"
import json, sys
assert len(json.load(open(sys.argv[1]))["digests"]["/usr/bin/attest-demo"]) == 2
PY
expect 2 "another key's signature" "$W" create --apt-repo "$T/repo" --keyring "$T/other.gpg" -o "$T/h.json"
grep -q "signature not verified" "$T/err" && [ ! -e "$T/h.json" ] && ok "refused, nothing written" || { bad "wrong key"; cat "$T/err"; }
expect 2 "--apt-repo without --keyring" "$W" create --apt-repo "$T/repo" -o "$T/h.json"
cp -r "$T/repo" "$T/r2"
sed -i 's/^Origin: attest-test/Origin: attest-evil/' "$T/r2/InRelease"
expect 2 "a tampered InRelease" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/h.json"
grep -q "signature not verified" "$T/err" && [ ! -e "$T/h.json" ] && ok "tampered InRelease refused" || { bad "tampered InRelease"; cat "$T/err"; }
rm -rf "$T/r2" && cp -r "$T/repo" "$T/r2"
printf '\n' | xz >>"$T/r2/Packages.xz"
expect 2 "a Packages.xz the Release does not list" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/h.json"
grep -q "not the index the signed Release lists" "$T/err" && [ ! -e "$T/h.json" ] && ok "index hash checked" || { bad "index hash"; cat "$T/err"; }
rm -rf "$T/r2" && cp -r "$T/repo" "$T/r2"
cp "$T/r2/pool/dash_"*.deb "$T/r2/pool/hello_"*.deb
expect 2 "a .deb that is not the one the index names" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/h.json"
grep -q "hello .*not the file the index names" "$T/err" && [ ! -e "$T/h.json" ] && ok ".deb hash checked before reading" || { bad ".deb hash"; cat "$T/err"; }
rm -rf "$T/r2" && cp -r "$T/repo" "$T/r2"
rm "$T/r2/InRelease"
(cd "$T/r2" && gpg -q --batch -u test@example.org --detach-sign -o Release.gpg Release)
expect 0 "Release + Release.gpg" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/r2.json"
"$W" diff "$T/r2.json" "$T/apt.json" >/dev/null && ok "same whitelist from the detached signature" || bad "Release.gpg"
echo tampered >>"$T/r2/Release"
expect 2 "Release changed after Release.gpg" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/h.json"
# an expired Release (Valid-Until in the past) is refused, as APT does
for when in "Sat, 01 Jan 2000 00:00:00 UTC":2 "Fri, 01 Jan 2100 00:00:00 UTC":0; do
	rm -rf "$T/r2" && cp -r "$T/repo" "$T/r2"
	(cd "$T/r2" && sed -i "s/^Suite: test\$/Suite: test\nValid-Until: ${when%:*}/" Release &&
		gpg -q --batch --yes -u test@example.org --clearsign -o InRelease Release)
	rm -f "$T/h.json"
	expect "${when##*:}" "Valid-Until: ${when%:*}" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" -o "$T/h.json"
	if [ "${when##*:}" -eq 2 ]; then
		grep -q "Release expired (Valid-Until: Sat, 01 Jan 2000" "$T/err" && [ ! -e "$T/h.json" ] &&
			ok "expired Release named, nothing written" || { bad "expired Release"; cat "$T/err"; }
	fi
done
# a mirror's layout: dists/SUITE/main/binary-all/Packages.xz, pool/ at the root
mkdir -p "$T/mirror/dists/test/main/binary-all"
cp -r "$T/repo/pool" "$T/mirror/"
(cd "$T/mirror" && dpkg-scanpackages --multiversion pool /dev/null 2>/dev/null | xz >dists/test/main/binary-all/Packages.xz &&
	cd dists/test && {
	printf 'Suite: test\nSHA256:\n'
	f=main/binary-all/Packages.xz
	printf ' %s %s %s\n' "$(sha256sum $f | cut -d' ' -f1)" "$(stat -c %s $f)" "$f"
} >Release && gpg -q --batch -u test@example.org --clearsign -o InRelease Release)
cp -r "$T/mirror/dists/test" "$T/mirror/dists/test2"
ln -s test "$T/mirror/dists/stable"
expect 0 "create --apt-repo (a mirror's dists/, two suites)" "$W" create --apt-repo "$T/mirror" --keyring "$T/key.gpg" -o "$T/mirror.json"
grep -q "2 signed indices, 16 packages (every version), 8 .deb files" "$T/err" && grep -q "8 archives" "$T/err" &&
	ok "a .deb in two suites is read once; the stable symlink is not a third suite" || { bad "suites"; cat "$T/err"; }
"$W" diff "$T/mirror.json" "$T/apt.json" >/dev/null && ok "mirror layout lists the same" || bad "mirror layout"
expect 0 "--apt-repo --cache (cold)" "$W" create --apt-repo "$T/repo" --keyring "$T/key.gpg" --cache "$T/acache" -o "$T/a1.json"
expect 0 "--apt-repo --cache (re-run)" "$W" create --apt-repo "$T/repo" --keyring "$T/key.gpg" --cache "$T/acache" -o "$T/a2.json"
grep -q "(8 from the cache, 0 read" "$T/err" && cmp -s "$T/a1.json" "$T/a2.json" && ok "re-run over an unchanged repository reads no package" || { bad "repo cache"; cat "$T/err"; }
# the index's SHA-256 names the cache entry: no .deb is even opened
rm -rf "$T/r2" && cp -r "$T/repo" "$T/r2" && rm "$T"/r2/pool/*.deb
expect 0 "--apt-repo --cache with the .debs gone" "$W" create --apt-repo "$T/r2" --keyring "$T/key.gpg" --cache "$T/acache" -o "$T/a3.json"
"$W" diff "$T/a3.json" "$T/a1.json" >/dev/null && ok "cache hits open no .deb" || bad "cache hit opened a .deb"

# 7. --dpkg-root: what is installed, its .debs from var/cache/apt/archives
# or the repository, its diversions.
R2="$T/host"
mkdir -p "$R2/var/lib/dpkg" "$R2/var/cache/apt/archives"
cp "$D"/hello_*.deb "$R2/var/cache/apt/archives/"
HV=$(dpkg-deb -f "$D"/hello_*.deb Version)
cat >"$R2/var/lib/dpkg/status" <<STATUS
Package: hello
Status: install ok installed
Architecture: amd64
Version: $HV

Package: attest-demo
Status: install ok installed
Architecture: all
Version: 1.1

Package: not-there
Status: install ok installed
Architecture: amd64
Version: 1.0

Package: removed
Status: deinstall ok config-files
Architecture: amd64
Version: 2.0
STATUS
printf '/usr/bin/hello\n/usr/bin/hello.distrib\nattest-demo\n' >"$R2/var/lib/dpkg/diversions"
expect 1 "create --dpkg-root (a package without its .deb reported)" "$W" create --dpkg-root "$R2" --apt-repo "$T/repo" --keyring "$T/key.gpg" -o "$T/root.json"
grep -q "not-there 1.0 amd64: installed, but no .deb" "$T/err" && ok "missing .deb reported" || { bad "missing .deb"; cat "$T/err"; }
python3 - "$T/root.json" "$T/apt.json" <<'PY' && ok "installed versions only, diversion applied" || bad "dpkg-root content"
import json, sys
d = json.load(open(sys.argv[1]))["digests"]; a = json.load(open(sys.argv[2]))["digests"]
assert "/usr/bin/hello" not in d and d["/usr/bin/hello.distrib"] == a["/usr/bin/hello"], d.keys()
assert len(d["/usr/bin/attest-demo"]) == 1 and d["/usr/bin/attest-demo"][0] in a["/usr/bin/attest-demo"]
assert not any(k.startswith("/usr/bin/bash") for k in d)
PY

echo "wl_deb: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
