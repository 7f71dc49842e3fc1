#!/bin/sh
# loop.sh O TAG N - boot kernel TAG (6.1 or 6.12, see VM_KERNELS) N times
# with the same slim.ko and initramfs and count the clean boots: a boot is
# clean when the guest printed its end marker, every scenario of its plan
# printed PASS, and the console shows no BUG/Oops/WARNING/hung task/stall.
#
# A reliability loop, not part of `make check` (tests/vm/README.md). The
# plan is VM_SCENARIOS (default: lattice_load lattice_unload_under_load);
# names may repeat.
#   VM_SCN_LIMIT  seconds per scenario inside the guest (default 240)
#   VM_TIMEOUT    seconds per boot on the host (default 400)
#   VM_KO         a slim.ko built elsewhere (e.g. an older commit's, for a
#                 before/after comparison) instead of this tree's
#   VM_LOOP_NAME  a suffix for the work directory, to keep loops apart
# Output: one "boot K: clean|FAIL why" line per boot, the console of each
# failed boot kept as O/vm-loop/TAG[-VM_LOOP_NAME]/fail-K.log, the
# unload timings, and the last line
# "loop TAG: C of N boots clean". Exit status 0 only when all were clean.
set -u
O=$(cd "${1:?usage: loop.sh O TAG N}" && pwd)
tag=${2:?usage: loop.sh O TAG N}
n=${3:?usage: loop.sh O TAG N}
. "$(dirname "$0")/lib.sh"
VM_TIMEOUT=${VM_TIMEOUT:-400}
krel=$(vm_kernel_release "$tag") || { echo "loop: no kernel $tag in VM_KERNELS" >&2; exit 2; }
d=$O/vm-loop/$tag${VM_LOOP_NAME:+-$VM_LOOP_NAME}
rm -rf "$d"
mkdir -p "$d"
VM_SCENARIOS=${VM_SCENARIOS:-"lattice_load lattice_unload_under_load"}
export VM_SCENARIOS
want=$(echo $VM_SCENARIOS | wc -w)

if [ -n "${VM_KO:-}" ]; then
	mkdir -p "$d/module" && cp "$VM_KO" "$d/module/slim.ko" || exit 2
else
	vm_build_module "$krel" "$d/module" || { echo "loop: slim.ko does not build for $krel" >&2; exit 2; }
fi
head -c 32 /dev/urandom >"$d/evm.key"
vm_build_evm_disk "$d/evm.img" "$d/evm.key" 5a1e0e7a-0000-4000-8000-00000000e7a1 \
	"$O/rel/bin/slimctl" || { echo "loop: cannot build the EVM image" >&2; exit 2; }
VM_EVM_KEY=$d/evm.key
VM_KREL=$krel
vm_build_initramfs "$d/initramfs.cpio.gz" "$d/module/slim.ko" tests "$O/rel/bin" ||
	{ echo "loop: cannot build the initramfs" >&2; exit 2; }

clean=0
k=1
while [ "$k" -le "$n" ]; do
	b=$d/boot
	rm -rf "$b"
	mkdir -p "$b"
	cp "$d/evm.img" "$b/disk.img"
	vm_boot "$krel" "$d/initramfs.cpio.gz" "$b" "$VM_TIMEOUT"
	con=$b/console.txt
	tr -d '\r' <"$b/console.log" >"$con" 2>/dev/null || : >"$con"
	passed=$(grep -c '^@@SCEN [a-z0-9_]* PASS$' "$con")
	why=""
	if ! grep -q '^@@VM-END' "$con"; then
		why="no end marker (after: $(grep '^@@SCEN' "$con" | tail -n 1))"
	elif grep -q '^@@SCEN [a-z0-9_]* FAIL' "$con"; then
		why=$(grep '^@@SCEN [a-z0-9_]* FAIL' "$con" | head -n 1)
	elif [ "$passed" != "$want" ]; then
		why="$passed of $want scenarios passed"
	elif grep -E -q "BUG:|Oops|WARNING:|general protection|Call Trace|blocked for more than|soft lockup|rcu_(sched|preempt) detected stalls" "$con"; then
		why="kernel complained: $(grep -E "BUG:|Oops|WARNING:|blocked for more|stall|soft lockup" "$con" | head -n 1)"
	fi
	sed -n 's/^@@INFO //p' "$con" >>"$d/info.log"
	if [ -z "$why" ]; then
		echo "boot $k: clean"
		clean=$((clean + 1))
	else
		echo "boot $k: FAIL $why"
		cp "$con" "$d/fail-$k.log"
	fi
	k=$((k + 1))
done
# the unload scenario's timings (lattice.sh prints them), over all boots
if [ -s "$d/info.log" ]; then
	awk '/^unload round/ { r[++nr] = $5; i[++ni] = $8 }
		/^unload idle/ { d[++nd] = $4 }
		function mm(a, n, what,   k, lo, hi, s) {
			if (!n) return
			lo = hi = a[1]; s = 0
			for (k = 1; k <= n; k++) { if (a[k] < lo) lo = a[k]; if (a[k] > hi) hi = a[k]; s += a[k] }
			printf "loop '"$tag"': %s: %d times, %.2f-%.2f s, mean %.2f s\n", what, n, lo, hi, s / n
		}
		END { mm(r, nr, "rmmod under load"); mm(i, ni, "insmod under load"); mm(d, nd, "rmmod idle") }' "$d/info.log"
fi
echo "loop $tag: $clean of $n boots clean"
[ "$clean" = "$n" ]
