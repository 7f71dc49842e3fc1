#!/bin/sh
# bench/vm/run.sh O - overhead of slim.ko on an exec/open-heavy loop, against
# no module and against mainline IMA with the tcb rules, in one VM run per
# kernel (qemu TCG, so only the ratios mean something). Results:
# O/bench/vm-<kernel>.txt. BENCH_KERNELS="6.1 6.12" (default: both).
# The guest runs with -icount (time counted in guest instructions, 1 ns
# each, idle time skipped): wall-clock timing under TCG varied by +-50%
# between identical runs, instruction-counted time by about 1%. Waits for
# the TPM still depend on when swtpm answers, hence best of 5.
# VM_QEMU_EXTRA= (empty) measures wall-clock time instead.
set -u
O=$(cd "${1:?usage: bench/vm/run.sh O}" && pwd)
. "$(dirname "$0")/../../tests/vm/lib.sh"
OUT=$O/bench/vm
VM_QEMU_EXTRA=${VM_QEMU_EXTRA--icount shift=0,sleep=off}
export VM_QEMU_EXTRA
mkdir -p "$OUT"
status=0
for tag in ${BENCH_KERNELS:-6.1 6.12}; do
	krel=$(vm_kernel_release "$tag") || { echo "unknown kernel $tag" >&2; exit 2; }
	d=$OUT/$tag
	rm -rf "$d"
	mkdir -p "$d"
	vm_build_module "$krel" "$d/module" || exit 1
	vm_build_initramfs "$d/initramfs.cpio.gz" "$d/module/slim.ko" bench
	vm_boot "$krel" "$d/initramfs.cpio.gz" "$d" 900 \
		"ima_template=ima-ng ima_hash=sha256"
	tr -d '\r' <"$d/console.log" >"$d/console.txt"
	if ! grep -q '^@@VM-END' "$d/console.txt" || grep -q '^@@BENCH-ERROR' "$d/console.txt"; then
		echo "bench vm/$tag: FAILED" >&2
		tail -n 40 "$d/console.txt" >&2
		status=1
		continue
	fi
	awk -v tag="$tag" '
	/^@@BENCH / { ms[$2 " " $3] = ms[$2 " " $3] " " $4 }
	/^@@BENCH-INFO/ { info[$2] = substr($0, 14) }
	# the minimum: emulator noise only ever adds time
	function med(s,   a, n, i, m) {
		n = split(s, a, " ")
		m = a[1] + 0
		for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0
		return m
	}
	function spread(s,   a, n, i, lo, hi) {
		n = split(s, a, " ")
		lo = hi = a[1] + 0
		for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
		return lo "-" hi
	}
	END {
		printf "bench vm/%s (qemu TCG -icount, guest ms, best of 5; spread none %s / %s / %s, slim %s / %s / %s, ima %s / %s / %s)\n", tag, \
			spread(ms["none cached"]), spread(ms["none new"]), spread(ms["none pipe"]), \
			spread(ms["slim cached"]), spread(ms["slim new"]), spread(ms["slim pipe"]), \
			spread(ms["ima cached"]), spread(ms["ima new"]), spread(ms["ima pipe"])
		printf "  %-8s %10s %10s %10s %12s %12s\n", "workload", "none", "slim", "ima-tcb", "slim/none", "ima/none"
		split("cached new pipe", w, " ")
		for (k = 1; k <= 3; k++) {
			b = med(ms["none " w[k]]); s = med(ms["slim " w[k]]); m = med(ms["ima " w[k]])
			printf "  %-8s %10d %10d %10d %12.2f %12.2f\n", w[k], b, s, m, \
				b ? s / b : 0, b ? m / b : 0
		}
		printf "  lists after a run: %s; %s\n", info["slim"], info["ima"]
	}' "$d/console.txt" | tee "$O/bench/vm-$tag.txt"
done
exit $status
