#!/bin/sh
# valgrind_whitelist.sh - attest-whitelist (release build) under valgrind:
# check (binary and ascii, JSON output, a bad list), create (rootfs with
# every kind of file, IMA log, .deb packages, an initramfs), merge, diff, export/import: no invalid
# access, no definite or indirect leak (valgrind exits 9 on any).
set -u
B=${ATT_BUILD:?}
W="$B/bin/attest-whitelist"
G="$B/tools/att-imagen"
command -v valgrind >/dev/null || { echo "FAIL: valgrind missing"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
vg() { # expected-exit description args...
	want=$1
	what=$2
	shift 2
	valgrind -q --error-exitcode=9 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect "$W" "$@" >"$T/out" 2>&1
	got=$?
	if [ "$got" -eq "$want" ]; then
		pass=$((pass + 1))
		echo "ok   $what"
	else
		fail=$((fail + 1))
		echo "FAIL $what: exit $got (want $want; 9 = valgrind)"
		head -40 "$T/out" | sed 's/^/     /'
	fi
}
"$G" -o "$T/l" -n 500 --template mixed --violation-every 50 --pcrs "$T/p" --whitelist "$T/wl.json"
"$G" -o "$T/a" -n 200 --template mixed --ascii --pcrs "$T/pa" --whitelist "$T/wla.json"
vg 1 "check binary (violations)" check "$T/wl.json" "$T/l" --pcrs sha256,"$T/p-sha256.txt" --json
vg 0 "check ascii" check "$T/wla.json" "$T/a" --pcrs sha256,"$T/pa-sha256.txt"
head -c 777 "$T/l" >"$T/cut"
vg 2 "check truncated list" check "$T/wl.json" "$T/cut"
mkdir -p "$T/r/usr/bin" "$T/r/etc"
cp /bin/true "$T/r/usr/bin/"
printf '#!/bin/sh\n' >"$T/r/usr/bin/s"
ln -s true "$T/r/usr/bin/l"
mkfifo "$T/r/usr/bin/f"
vg 0 "create rootfs (a fifo reported, exit 0)" create --rootfs "$T/r" -j 2 -o "$T/c.json"
# packages and an initramfs: libarchive's decoders and the cache
. "${ATT_SRC:?}/tests/lib/debs.sh"
att_fetch_debs "$B/../test-debs" hello bzip2 || fail=$((fail + 1))
vg 0 "create --deb (hard links) with a cache" create --deb "$B"/../test-debs/hello_*.deb "$B"/../test-debs/bzip2_*.deb --cache "$T/cache" -j 2 -o "$T/d.json"
vg 0 "create --deb from the cache" create --deb "$B"/../test-debs/hello_*.deb "$B"/../test-debs/bzip2_*.deb --cache "$T/cache" -o "$T/d2.json"
head -c 30000 "$B"/../test-debs/hello_*.deb >"$T/cut.deb"
vg 2 "create --deb (a truncated package)" create --deb "$T/cut.deb" -o "$T/d3.json"
(cd "$T/r" && find . | cpio --quiet -o -H newc) >"$T/early.cpio" 2>/dev/null
{ cat "$T/early.cpio"; gzip <"$T/early.cpio"; } >"$T/initrd"
vg 0 "create --initrd (early + gzip)" create --initrd "$T/initrd" -o "$T/i.json"
vg 1 "create from an IMA log (violations reported)" create --ima-log "$T/l" -o "$T/c2.json"
vg 0 "merge" merge "$T/c.json" "$T/c2.json" -o "$T/m.json"
vg 1 "diff" diff "$T/c.json" "$T/m.json"
vg 0 "export" export "$T/m.json" --allowlist "$T/al" --excludes "$T/ex" --policy "$T/pol.json"
vg 0 "import" import --allowlist "$T/al" --excludes "$T/ex" -o "$T/back.json"
echo '{"digests": {"/a": ["zz"]}}' >"$T/bad.json"
vg 1 "validate a bad whitelist" validate "$T/bad.json"
echo "valgrind_whitelist: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
