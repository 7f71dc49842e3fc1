# root.sh - a root process below SYSTEM integrity cannot undo the lattice,
# and nobody switches the module off while lock=1 (issue 38,
# kernel/lattice_confine.c). Sourced by scenarios.sh; these run last: the
# module is the one lock_refuses_removal loaded (lock=1, it cannot go),
# set to enforce by root_setup. Every scenario does the same thing twice:
# as the SYSTEM root of the scenario shell (the control: it still works)
# and as a root demoted to UNTRUSTED by reading $L/untrusted (refused with
# EPERM, counted in denied_below_system, and a "refused" record in the
# list). The lab ($L, $G, $T) is lattice_load's; /disk is the EVM
# scenarios' ext4 image, /dev/loop0 a loop device over a SYSTEM file.
ROOT_SCENARIOS="root_setup root_kernel_code root_hardware root_mounts
root_block root_ioctl root_settings root_switch_off"

LOOPIMG=$L/disk.img

# low CMD: CMD run by a root shell demoted to UNTRUSTED PUBLIC (it read
# $L/untrusted first), its output read through the guard; the last line
# is "rc=STATUS"
low() {
	$T read $L/untrusted exec /bin/sh -c "$1; echo rc=\$?" 2>&1 | $G cat
}

# hexof TEXT: TEXT's bytes in lower-case hex, as the ascii list shows them
hexof() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

# refused_count: the "refused" event records (type 8) in the list
refused_count() { grep -c ' slim_event 534c45560108' $K/ascii_runtime_measurements; }

# refused_has ACTION: a "refused" record names ACTION (the records are
# written by a worker: wait a little for it)
refused_has() {
	h=$(hexof "$1")
	n=0
	while [ $n -lt 20 ]; do
		grep ' slim_event 534c45560108' $K/ascii_runtime_measurements |
			grep -q "$h" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	fail "no refused record for '$1'"
	return 1
}

# lowdir: /disk/low, a directory labeled UNTRUSTED PUBLIC on the ext4
# disk, where a demoted root may create files (the directory rule of
# lattice_dir.c refuses new names in /disk itself)
lowdir() {
	mkdir -p /disk/low && slimctl relabel "UNTRUSTED PUBLIC" /disk/low ||
		{ fail "cannot make /disk/low"; return 1; }
}

# denied_since C0: denied_below_system grew since C0
denied_since() {
	[ "$(counter denied_below_system)" -gt "$1" ] ||
		{ fail "denied_below_system did not count"; return 1; }
}

scn_root_setup() {
	echo enforce >$K/mode || { fail "cannot set enforce"; return 1; }
	[ "$(slimctl mode)" = enforce ] || { fail "mode is $(slimctl mode)"; return 1; }
	[ "$(label_of $L/untrusted)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "lab label lost: $(slimctl show $L/untrusted)"; return 1; }
	run_t "read OK|level UNTRUSTED PUBLIC|" $T read $L/untrusted level || return 1
	mkdir -p /dev/pts /sys/kernel/debug /sys/kernel/tracing /sys/fs/cgroup /mnt/a /mnt/b /mnt/c
	grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts ||
		{ fail "cannot mount devpts"; return 1; }
	grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug ||
		{ fail "cannot mount debugfs"; return 1; }
	grep -q ' /sys/kernel/tracing ' /proc/mounts || mount -t tracefs tracefs /sys/kernel/tracing ||
		{ fail "cannot mount tracefs"; return 1; }
	grep -q ' /sys/fs/cgroup ' /proc/mounts || mount -t cgroup2 cgroup2 /sys/fs/cgroup ||
		{ fail "cannot mount cgroup2"; return 1; }
	mkdir -p /sys/fs/cgroup/t || { fail "cannot make a cgroup"; return 1; }
	[ -b /dev/loop0 ] || { fail "no /dev/loop0 (loop.ko)"; return 1; }
	# the EVM image (evm_disk_mount loaded its drivers; evm_remount
	# unmounted it); when still mounted from before this instance
	# loaded, it is watched from its first regular open, which would go
	# unchecked (unwatched_opens): watch it now
	mkdir -p /disk
	grep -q ' /disk ' /proc/mounts || mount -t ext4 /dev/vda /disk ||
		{ fail "cannot mount /dev/vda on /disk"; return 1; }
	echo /disk >$K/watch || { fail "cannot watch /disk"; return 1; }
	# the SYSTEM control: set a loop device over a SYSTEM file
	dd if=/dev/zero of=$LOOPIMG bs=4096 count=256 2>/dev/null &&
		losetup /dev/loop0 $LOOPIMG || { fail "SYSTEM root cannot set /dev/loop0"; return 1; }
	[ "$(label_of $LOOPIMG)" = "SYSTEM PUBLIC" ] || { fail "$LOOPIMG: $(slimctl show $LOOPIMG)"; return 1; }
}

# class 3: kernel code and the next kernel
scn_root_kernel_code() {
	c0=$(counter denied_below_system)
	# SYSTEM: the module is loaded already (EEXIST after every check);
	# kexec_load with no segments unloads (nothing loaded); a BPF program
	run_t "finit EEXIST|kexec-unload OK|bpf-prog OK|" \
		$T finit /lib/slim.ko kexec-unload bpf-prog || return 1
	run_t "read OK|finit EPERM|kexec-unload EPERM|bpf-prog EPERM|level UNTRUSTED PUBLIC|" \
		$T read $L/untrusted finit /lib/slim.ko kexec-unload bpf-prog level || return 1
	# swap on a file the demoted root made itself, in a directory of its
	# level (so neither the write-up nor the directory rule stands in the
	# way): refused; a SYSTEM root swaps on and off
	lowdir || return 1
	out=$(low "dd if=/dev/zero of=/disk/low/lowswap bs=4096 count=64 2>/dev/null && mkswap /disk/low/lowswap >/dev/null && swapon /disk/low/lowswap")
	case "$out" in *rc=0*) fail "demoted swapon: $out"; return 1 ;; esac
	if grep -q lowswap /proc/swaps; then
		swapoff /disk/low/lowswap
		fail "a demoted root turned swap on: $out"
		return 1
	fi
	dd if=/dev/zero of=/disk/swap bs=4096 count=64 2>/dev/null && mkswap /disk/swap >/dev/null &&
		swapon /disk/swap && grep -q /disk/swap /proc/swaps && swapoff /disk/swap ||
		{ fail "SYSTEM root cannot swapon/swapoff"; return 1; }
	denied_since "$c0" || return 1
	refused_has "load a kernel module" && refused_has "load a kernel to kexec" &&
		refused_has "use bpf(2)" && refused_has "swapon"
}

# class 4: raw hardware
scn_root_hardware() {
	c0=$(counter denied_below_system)
	run_t "ioperm OK|iopl OK|opendev OK|opendev OK|" \
		$T ioperm iopl opendev /dev/mem opendev /dev/port || return 1
	run_t "read OK|ioperm EPERM|iopl EPERM|opendev EPERM|opendev EPERM|" \
		$T read $L/untrusted ioperm iopl opendev /dev/mem opendev /dev/port || return 1
	denied_since "$c0" || return 1
	refused_has "pass kernel lockdown point"
}

# class 2: mounts (a new file system, a bind mount, an unmount, the
# media the task could have made: a loop device)
scn_root_mounts() {
	c0=$(counter denied_below_system)
	mount -t tmpfs a /mnt/a && mount --bind /mnt/a /mnt/b && umount /mnt/b ||
		{ fail "SYSTEM root cannot mount, bind, unmount"; return 1; }
	out=$(low "mount -t tmpfs c /mnt/c")
	grep -q ' /mnt/c ' /proc/mounts && { umount /mnt/c; fail "demoted mount: $out"; return 1; }
	out=$(low "mount --bind /mnt/a /mnt/b")
	grep -q ' /mnt/b ' /proc/mounts && { umount /mnt/b; fail "demoted bind mount: $out"; return 1; }
	out=$(low "umount /mnt/a")
	grep -q ' /mnt/a ' /proc/mounts || { fail "demoted unmount: $out"; return 1; }
	# a file system on the loop device: SYSTEM mounts it, a demoted root
	# cannot (it could not have written it either: root_block)
	mke2fs -q /dev/loop0 >/dev/null 2>&1 && mount -t ext2 /dev/loop0 /mnt/b && umount /mnt/b ||
		{ fail "SYSTEM root cannot mount /dev/loop0"; return 1; }
	out=$(low "mount -t ext2 /dev/loop0 /mnt/c")
	grep -q ' /mnt/c ' /proc/mounts && { umount /mnt/c; fail "demoted mount of /dev/loop0: $out"; return 1; }
	umount /mnt/a
	denied_since "$c0" || return 1
	refused_has "mount" && refused_has "unmount"
}

# class 1: block and loop devices
scn_root_block() {
	c0=$(counter denied_below_system)
	run_t "blkwrite OK|discard OK|" $T blkwrite /dev/loop0 discard /dev/loop0 || return 1
	sync
	before=$(sha256sum <$LOOPIMG)
	run_t "read OK|blkwrite EPERM|discard EPERM|zeroout EPERM|level UNTRUSTED PUBLIC|" \
		$T read $L/untrusted blkwrite /dev/loop0 discard /dev/loop0 zeroout /dev/loop0 level || return 1
	# a node it made itself for the same device
	out=$(low "mknod $L/blk b 7 0 && dd if=/dev/zero of=$L/blk bs=512 count=1 conv=notrunc")
	case "$out" in *rc=0*) fail "write through a new node: $out"; return 1 ;; esac
	sync
	[ "$(sha256sum <$LOOPIMG)" = "$before" ] || { fail "$LOOPIMG changed through /dev/loop0"; return 1; }
	# setting up a loop device over its own file; SYSTEM can
	out=$(low "dd if=/dev/zero of=$L/lowimg bs=4096 count=16 2>/dev/null && echo made")
	case "$out" in *made*) ;; *) fail "no $L/lowimg: $out"; return 1 ;; esac
	run_t "read OK|loopset EPERM|" $T read $L/untrusted loopset /dev/loop1 $L/lowimg || return 1
	dd if=/dev/zero of=$L/sysimg bs=4096 count=16 2>/dev/null
	run_t "loopset OK|" $T loopset /dev/loop1 $L/sysimg || return 1
	denied_since "$c0" || return 1
	refused_has "write a block device" && refused_has "ioctl 0x1277 on a block device"
}

# class 6: ioctls that write, through a descriptor opened before the
# demotion; TIOCSTI
scn_root_ioctl() {
	c0=$(counter denied_below_system)
	for f in sysfile sysfile2; do
		dd if=/dev/zero bs=4096 count=1 2>/dev/null | tr '\0' 'S' >/disk/$f
	done
	sync
	before=$(sha256sum </disk/sysfile)
	run_t "openrw OK|setflags OK|moveext OK|" $T openrw /disk/sysfile2 setflags moveext /disk/donor2 ||
		return 1
	# the donor in a directory of the demoted task's level: only the
	# ioctl rule can refuse
	lowdir || return 1
	run_t "openrw OK|read OK|isatty ENOTTY|setflags EPERM|moveext EPERM|level UNTRUSTED PUBLIC|" \
		$T openrw /disk/sysfile read $L/untrusted isatty setflags moveext /disk/low/donor level || return 1
	[ "$(sha256sum </disk/sysfile)" = "$before" ] || { fail "/disk/sysfile changed"; return 1; }
	run_t "tiocsti OK|" $T tiocsti || return 1
	run_t "read OK|tiocsti EPERM|" $T read $L/untrusted tiocsti || return 1
	denied_since "$c0" || return 1
	refused_has "inject input into a terminal" && refused_has "on a file up in integrity" ||
		return 1
	# a terminal query (isatty: TCGETS, 0x5401) reads: refused nowhere
	if grep ' slim_event 534c45560108' $K/ascii_runtime_measurements |
		grep -q "$(hexof 'ioctl 0x5401')"; then
		fail "a refused record for TCGETS (isatty)"
		return 1
	fi
}

# class 5: kernel settings and pseudo file systems; what a lower task
# may still write there: the /proc files of its own process (and of
# processes at or below its integrity), nothing else
scn_root_settings() {
	c0=$(counter denied_below_system)
	cp=$(cat /proc/sys/kernel/core_pattern)
	ksm=$(cat /sys/kernel/mm/ksm/run)
	pol=$(cat $K/policy)
	# SYSTEM writes each of them (the same values)
	echo "$cp" >/proc/sys/kernel/core_pattern && echo "$ksm" >/sys/kernel/mm/ksm/run &&
		echo 0 >/sys/fs/cgroup/t/cgroup.freeze && echo 1 >/sys/kernel/tracing/tracing_on &&
		printf '%s\n' "$pol" >$K/policy || { fail "SYSTEM root cannot write the settings"; return 1; }
	out=$(low "echo '|/lab/evil' >/proc/sys/kernel/core_pattern")
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$cp" ] || { fail "core_pattern written: $out"; return 1; }
	case "$out" in *rc=0*) fail "core_pattern: $out"; return 1 ;; esac
	for f in /sys/kernel/mm/ksm/run /sys/fs/cgroup/t/cgroup.freeze /sys/kernel/tracing/tracing_on; do
		out=$(low "echo 1 >$f")
		case "$out" in *rc=0*) fail "demoted write to $f: $out"; return 1 ;; esac
	done
	[ "$(cat /sys/fs/cgroup/t/cgroup.freeze)" = 0 ] || { fail "cgroup frozen"; return 1; }
	run_t "read OK|put EPERM|" $T read $L/untrusted put $K/policy "$pol" || return 1
	# its own /proc files: yes; PID 1's: no
	out=$(low "echo 10 >/proc/self/oom_score_adj")
	case "$out" in *rc=0*) ;; *) fail "own oom_score_adj: $out"; return 1 ;; esac
	out=$(low "echo 10 >/proc/1/oom_score_adj")
	case "$out" in *rc=0*) fail "PID 1's oom_score_adj: $out"; return 1 ;; esac
	[ "$(cat /proc/1/oom_score_adj)" = 0 ] || { fail "PID 1's oom_score_adj changed"; return 1; }
	denied_since "$c0" || return 1
	refused_has "write a kernel setting"
}

# class 7: for everyone (this SYSTEM root included) while lock=1: the
# hooks cannot be switched off and the module cannot be forced out
scn_root_switch_off() {
	# the scenarios before spend the records' burst (32, then 8 a second:
	# kernel/events.c); this one looks for its own two records
	sleep 4
	s0=$(counter denied_switch_off)
	if sysctl -w kernel.ftrace_enabled=0 >/tmp/sysctl.out 2>&1; then
		fail "ftrace_enabled=0 accepted: $(cat /tmp/sysctl.out)"
		return 1
	fi
	[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ] || { fail "ftrace is off"; return 1; }
	if echo 0 >/sys/kernel/debug/kprobes/enabled; then
		fail "kprobes disabled"
		return 1
	fi
	[ "$(cat /sys/kernel/debug/kprobes/enabled)" = 1 ] || { fail "kprobes are off"; return 1; }
	echo 1 >/sys/kernel/debug/kprobes/enabled || { fail "cannot write 1 to kprobes/enabled"; return 1; }
	if rmmod -f slim 2>/tmp/rmmod.err; then
		fail "rmmod -f removed the locked module"
		return 1
	fi
	grep -q '^slim ' /proc/modules || { fail "module gone"; return 1; }
	[ "$(counter denied_switch_off)" -ge $((s0 + 2)) ] || { fail "denied_switch_off: $(counter denied_switch_off)"; return 1; }
	refused_has "disable kprobes" && refused_has "force the removal of slim" || return 1
	# still measuring and still enforcing
	mkprog /root/p7 7
	c0=$(mcount)
	/root/p7/true true
	expect_new_entry "$c0" /root/p7/true || return 1
	run_t "read OK|write EACCES|" $T read $L/untrusted write $L/sys
}
