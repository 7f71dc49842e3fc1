#!/bin/sh
# dkms_build.sh - slim.ko builds through DKMS with deploy/dkms.conf, for
# both Debian kernels, from a copy of kernel/ in a private DKMS tree (the
# machine's own /usr/src and /var/lib/dkms are left alone).
set -u
# Run from `make O=DIR integration`, MAKEFLAGS carries O=DIR, which
# kbuild would take as its output directory: DKMS's make must not see it.
unset MAKEFLAGS MFLAGS MAKELEVEL
command -v dkms >/dev/null || { echo "FAIL: dkms is not installed"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
src="$T/src/slim-0.1"
mkdir -p "$src" "$T/tree"
cp "$ATT_SRC"/kernel/*.c "$ATT_SRC"/kernel/*.h "$ATT_SRC"/kernel/Kbuild "$src/"
cp "$ATT_SRC/deploy/dkms.conf" "$src/dkms.conf"
pass=0
fail=0
dkms add -m slim -v 0.1 --sourcetree "$T/src" --dkmstree "$T/tree" >"$T/add.log" 2>&1 ||
	{ echo "FAIL dkms add"; cat "$T/add.log"; exit 1; }
for kdir in /usr/src/linux-headers-6.1.*-amd64 /usr/src/linux-headers-6.12.*-amd64; do
	k=$(basename "$kdir" | sed 's/^linux-headers-//')
	ko=""
	if dkms build -m slim -v 0.1 -k "$k" --kernelsourcedir "$kdir" \
		--sourcetree "$T/src" --dkmstree "$T/tree" >"$T/build-$k.log" 2>&1; then
		ko=$(find "$T/tree/slim/0.1/$k" -name 'slim.ko*' | head -n 1)
	fi
	# built, and for that kernel (vermagic names its release)
	if [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$k "; then
		echo "ok   dkms build for $k"
		pass=$((pass + 1))
	else
		echo "FAIL dkms build for $k"
		tail -20 "$T/build-$k.log"
		find "$T/tree" -name make.log -exec tail -20 {} \;
		fail=$((fail + 1))
	fi
done
echo "dkms_build: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
