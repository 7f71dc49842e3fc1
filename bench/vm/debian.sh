#!/bin/sh
# bench/vm/debian.sh O - the cost of slim.ko in enforce mode on a real
# Debian 12 host (issue 37): the guest of tests/vm/debian.sh booted twice
# per kernel, once as Debian ships it (no module) and once labeled with
# deploy/slim/debian.policy and slim.ko loaded at boot from modules-load.d
# with mode=enforce (the set-up of tests/vm/deb-enforce-test.sh, without its
# test daemon); and a third time as Debian ships it with mainline IMA's
# tcb rules (ima_policy=tcb: every file root reads is measured into the
# TPM, as slim.ko's default policy does). Measured in each boot:
#   boot       systemd-analyze's time to multi-user.target (kernel +
#              initrd + userspace)
#   workload   a steady-state mix run as root over ssh, best of
#              BENCH_DEB_REPS (default 3): 300 execs of /bin/true, 20 of
#              python3, reading every file under /usr/lib/x86_64-linux-gnu,
#              apt-cache queries, and writing, reading and removing 200
#              files in /var/tmp
# qemu TCG with -icount (time counted in guest instructions; idle time
# skipped) as bench/vm/run.sh: only the ratios mean something. The two
# boots of a kernel run one after the other, the kernels one after the
# other (one CPU each, no neighbour). Results: O/bench/vm-debian.txt.
# BENCH_KERNELS="6.1 6.12" (default: both).
set -u
O=$(cd "${1:?usage: bench/vm/debian.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/debian.sh"
OUT=$O/bench/vm-debian
SLIMCTL=${SLIMCTL:-$O/rel/bin/slimctl}
REPS=${BENCH_DEB_REPS:-3}
DEB_QEMU_EXTRA=${DEB_QEMU_EXTRA--icount shift=0,sleep=off}
export DEB_QEMU_EXTRA
rm -rf "$OUT"
mkdir -p "$OUT"
[ -x "$SLIMCTL" ] || { echo "bench debian: no $SLIMCTL (make rel first)" >&2; exit 2; }

tags=${BENCH_KERNELS:-6.1 6.12}
for tag in $tags; do
	krel=$(vm_kernel_release "$tag") || { echo "unknown kernel $tag" >&2; exit 2; }
	vm_build_module "$krel" "$OUT/module-$tag" >"$OUT/build-$tag.log" 2>&1 ||
		{ echo "bench debian: slim.ko does not build for $krel" >&2; exit 1; }
done

# the labeled image: slim.ko for each kernel, loaded at boot in enforce mode
slim_stage() {
	st=$1
	for tag in $tags; do
		krel=$(vm_kernel_release "$tag")
		mkdir -p "$st/lib/modules/$krel/updates"
		cp "$OUT/module-$tag/slim.ko" "$st/lib/modules/$krel/updates/" &&
			depmod -b "$st" "$krel" || return 1
	done
	install -D -m 644 "$VM_SRC/deploy/slim/modules-load.d/slim.conf" \
		"$st/etc/modules-load.d/slim.conf" &&
		install -D -m 644 "$VM_SRC/deploy/slim/modprobe.d/slim.conf" \
			"$st/etc/modprobe.d/slim.conf" &&
		"$SLIMCTL" label --root "$st" --offline "$VM_SRC/deploy/slim/debian.policy"
}
deb_image "$O/vm/debian" "$OUT/none.img" >"$OUT/image-none.log" 2>&1 ||
	{ echo "bench debian: cannot build the image" >&2; cat "$OUT/image-none.log" >&2; exit 1; }
DEB_STAGE_HOOK=slim_stage deb_image "$O/vm/debian" "$OUT/slim.img" >"$OUT/image-slim.log" 2>&1 ||
	{ echo "bench debian: cannot build the labeled image" >&2; cat "$OUT/image-slim.log" >&2; exit 1; }
cp "$O/vm/debian/"initrd-*.gz "$O/vm/debian/ssh" "$OUT/" -r

WORK='t0=$(date +%s%N)
i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done
i=0; while [ $i -lt 20 ]; do python3 -c pass; i=$((i + 1)); done
find /usr/lib/x86_64-linux-gnu -type f -exec cat {} + >/dev/null
apt-cache policy systemd >/dev/null; apt-cache depends openssh-server >/dev/null
mkdir -p /var/tmp/bench; i=0
while [ $i -lt 200 ]; do echo $i >/var/tmp/bench/f$i; cat /var/tmp/bench/f$i >/dev/null; i=$((i + 1)); done
rm -rf /var/tmp/bench
echo $((($(date +%s%N) - t0) / 1000000))'

# run TAG KIND: one boot (KIND none, slim or ima); prints
# "boot_ms workload_ms..." or fails
run() {
	g=$OUT/$1-$2
	rm -rf "$g"
	mkdir -p "$g"
	case $2 in
	ima) img=$OUT/none.img cmdline="ima_policy=tcb ima_template=ima-ng ima_hash=sha256" ;;
	*) img=$OUT/$2.img cmdline="" ;;
	esac
	deb_boot "$g" "$(vm_kernel_release "$1")" "$img" "$cmdline" || return 1
	if ! deb_wait_ssh "$g" 1500; then
		deb_stop "$g"
		echo "bench debian: $1 $2 did not boot" >&2
		return 1
	fi
	st=$(deb_ssh "$g" 'timeout 600 systemctl is-system-running --wait' 2>/dev/null | tr -d '\r')
	mode=$(deb_ssh "$g" 'cat /sys/kernel/security/slim/mode 2>/dev/null || echo none' | tr -d '\r')
	want=none
	[ "$2" = slim ] && want=enforce
	if [ "$st" != running ] || [ "$mode" != "$want" ]; then
		deb_stop "$g"
		echo "bench debian: $1 $2: state '$st', mode '$mode' (want running, $want)" >&2
		return 1
	fi
	# "Startup finished in 1.2s (kernel) + 3.4s (initrd) + 5.6s (userspace) = 10.2s"
	boot=$(deb_ssh "$g" 'systemd-analyze time' | tr -d '\r' | awk -F'= ' 'NR == 1 {
		n = split($2, p, " ")
		for (i = 1; i <= n; i++)
			if (p[i] ~ /min$/) ms += p[i] * 60000
			else if (p[i] ~ /ms$/) ms += p[i]
			else if (p[i] ~ /s$/) ms += p[i] * 1000
		print int(ms)
	}')
	[ -n "$boot" ] || { deb_stop "$g"; echo "bench debian: $1 $2: no systemd-analyze time" >&2; return 1; }
	w=""
	i=0
	while [ $i -lt "$REPS" ]; do
		w="$w $(deb_ssh "$g" "$WORK" | tr -d '\r' | tail -n 1)"
		i=$((i + 1))
	done
	deb_stop "$g"
	echo "$boot$w"
}

status=0
for tag in $tags; do
	none=$(run "$tag" none) || { status=1; continue; }
	slim=$(run "$tag" slim) || { status=1; continue; }
	ima=$(run "$tag" ima) || { status=1; continue; }
	echo "$tag $none | $slim | $ima" >>"$OUT/raw.txt"
done
awk -v reps="$REPS" '
function best(a, from, to,   i, m) {
	m = a[from] + 0
	for (i = from + 1; i <= to; i++) if (a[i] + 0 < m) m = a[i] + 0
	return m
}
BEGIN {
	printf "bench vm/debian (qemu TCG -icount, guest ms; boot: systemd-analyze; workload: best of %d)\n", reps
	printf "  %-6s %9s %9s %9s %10s %9s   %9s %9s %9s %10s %9s\n", "kernel", "boot none", "slim", "ima-tcb", "slim/none", "ima/none", "work none", "slim", "ima-tcb", "slim/none", "ima/none"
}
{
	split($0, h, "|")
	n = split(h[1], a, " ")
	m = split(h[2], b, " ")
	split(h[3], c, " ")
	bn = a[2]; bs = b[1]; bi = c[1]
	wn = best(a, 3, n); ws = best(b, 2, m); wi = best(c, 2, m)
	printf "  %-6s %9d %9d %9d %10.2f %9.2f   %9d %9d %9d %10.2f %9.2f\n", a[1], bn, bs, bi, bn ? bs / bn : 0, bn ? bi / bn : 0, wn, ws, wi, wn ? ws / wn : 0, wn ? wi / wn : 0
}' "$OUT/raw.txt" | tee "$O/bench/vm-debian.txt"
exit $status
