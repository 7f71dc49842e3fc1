#!/bin/sh
# kernel-static.sh O - static checks of slim.ko for both Debian kernels:
# W=1 and sparse (C=2) warnings, and checkpatch. Any warning fails.
set -u
O=${1:?usage: kernel-static.sh O}
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
pass=0
fail=0
for kdir in /usr/src/linux-headers-6.1.*-amd64 /usr/src/linux-headers-6.12.*-amd64; do
	[ -d "$kdir" ] || { echo "FAIL  kernel-static: no headers matching $kdir"; fail=$((fail + 1)); continue; }
	ver=$(basename "$kdir" | sed 's/^linux-headers-//')
	log="$O/kernel-static-$ver.log"
	mkdir -p "$O"
	if make -C "$src/kernel" KDIR="$kdir" OUT="$O/kcheck/$ver" check >"$log" 2>&1 &&
		! grep -E "warning:|error:|^(WARNING|ERROR|CHECK):" "$log" >/dev/null; then
		echo "PASS  kernel-static/$ver (W=1, sparse, checkpatch)"
		pass=$((pass + 1))
	else
		echo "FAIL  kernel-static/$ver, log follows:"
		grep -E "warning:|error:|WARNING|ERROR|CHECK" "$log" | head -30 | sed 's/^/    | /'
		tail -n 5 "$log" | sed 's/^/    | /'
		fail=$((fail + 1))
	fi
done
echo "kernel-static: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
