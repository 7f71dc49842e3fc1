# lattice_data.sh - the lattice's remaining data paths (issue 40; sourced by
# scenarios.sh after lattice_ipc.sh, whose helpers these use): every
# channel that carries data carries its writer's levels. The rules are in
# kernel/lattice_data.c; the probe's operations (slimtest_data.c) all
# succeed on a kernel without slim.ko. One scenario per class of the issue.

LATTICE_DATA_SCENARIOS="lattice_data_net lattice_data_objects lattice_data_memory
lattice_data_modes"

# the ptys' slaves (the init mounts devtmpfs only)
need_devpts() {
	grep -q ' /dev/pts devpts ' /proc/mounts && return 0
	mkdir -p /dev/pts && mount -t devpts devpts /dev/pts ||
		{ fail "cannot mount devpts"; return 1; }
}

# class 1: every way data leaves a socket is a receive; every family
# carries levels or is the network's UNTRUSTED
scn_lattice_data_net() {
	run_t "zc-recv OK|level UNTRUSTED PUBLIC|write EACCES|" $T zc-recv level write $L/sys ||
		return 1
	run_t "sendfile-tcp OK|level UNTRUSTED PUBLIC|" $T sendfile-tcp level || return 1
	run_t "sendfile-unix OK|level UNTRUSTED PUBLIC|" $T sendfile-unix $L/untrusted level ||
		return 1
	run_t "sendfile-unix OK|level SYSTEM PUBLIC|" $T sendfile-unix - level || return 1
	# netlink between processes: a reader already waiting
	run_t "nl-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T nl-from $L/untrusted level write $L/sys || return 1
	run_t "nl-from OK|level SYSTEM SYSTEM_SENSITIVE|" $T nl-from $L/secret level || return 1
	# a SYSTEM sender, the kernel's answers, a SYSTEM multicast: nothing changes
	run_t "nl-from OK|nl-kernel OK|nl-multicast OK|level SYSTEM PUBLIC|" \
		$T nl-from - nl-kernel nl-multicast level || return 1
	run_t "read OK|nl-multicast EACCES|nl-kernel OK|" \
		$T read $L/untrusted nl-multicast nl-kernel || return 1
	# AF_PACKET sees the network's input
	run_t "packet-recv OK|level UNTRUSTED PUBLIC|" $T packet-recv level
}

# class 3: objects that are not files but carry bytes
scn_lattice_data_objects() {
	need_devpts || return 1
	i0=$(counter demotions_ipc)
	run_t "eventfd-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T eventfd-from $L/untrusted level write $L/sys || return 1
	run_t "eventfd-from OK|level SYSTEM PUBLIC|" $T eventfd-from - level || return 1
	run_t "pty-from OK|level UNTRUSTED PUBLIC|" $T pty-from $L/untrusted level || return 1
	run_t "pty-to OK|level UNTRUSTED PUBLIC|" $T pty-to $L/untrusted level || return 1
	run_t "pty-from OK|pty-to OK|level SYSTEM PUBLIC|" $T pty-from - pty-to - level || return 1
	# an UNTRUSTED process uses its terminal, and reads what SYSTEM wrote
	run_t "read OK|pty-self OK|pty-from OK|level UNTRUSTED PUBLIC|" \
		$T read $L/untrusted pty-self pty-from - level || return 1
	run_t "key-from OK|level UNTRUSTED PUBLIC|" $T key-from $L/untrusted level || return 1
	run_t "key-update OK|level UNTRUSTED PUBLIC|" $T key-update $L/untrusted level || return 1
	run_t "key-from OK|key-update OK|level SYSTEM PUBLIC|" $T key-from - key-update - level ||
		return 1
	run_t "sem-from OK|level UNTRUSTED PUBLIC|" $T sem-from $L/untrusted level || return 1
	run_t "sem-from OK|level SYSTEM PUBLIC|" $T sem-from - level || return 1
	# a signal's value: refused up in integrity (SIGCHLD too) and down in
	# secrecy; the same signals without a value pass as before
	s0=$(counter denied_signal)
	run_t "spawn OK|read OK|sigqueue EPERM|kill OK|" \
		$T spawn - read $L/untrusted sigqueue CHLD kill CHLD || return 1
	run_t "spawn OK|read OK|sigqueue EPERM|" $T spawn - read $L/secret sigqueue USR1 || return 1
	run_t "spawn OK|sigqueue OK|" $T spawn - sigqueue CHLD || return 1
	more_than denied_signal "$s0" 2 || return 1
	# a trusted (or user: 6.1's tmpfs has none) xattr of a lower file is its
	# data; the label is metadata
	run_t "setxattr OK|setxattr OK|" $T setxattr $L/untrusted trusted.slimtest 41 \
		setxattr $L/sys trusted.slimtest 42 || return 1
	run_t "getxattr OK|level UNTRUSTED PUBLIC|" $T getxattr $L/untrusted trusted.slimtest level ||
		return 1
	run_t "getxattr OK|getxattr OK|level SYSTEM PUBLIC|" \
		$T getxattr $L/untrusted security.slim getxattr $L/sys trusted.slimtest level || return 1
	more_than demotions_ipc "$i0" 6
}

# class 2: shared memory beyond file mappings; class 4: userfaultfd
scn_lattice_data_memory() {
	# shared anonymous memory and a SysV segment mapped read-only before
	# the demotion may not be made writable after it, nor written through
	# /proc/PID/map_files
	run_t "anonro OK|read OK|mprotw-kept EACCES|mapfiles-write EACCES|" \
		$T anonro read $L/untrusted mprotw-kept mapfiles-write || return 1
	run_t "sysvro OK|read OK|mprotw-kept EACCES|" $T sysvro read $L/untrusted mprotw-kept ||
		return 1
	run_t "anonro OK|mprotw-kept OK|mapfiles-write OK|sysvro OK|mprotw-kept OK|level SYSTEM PUBLIC|" \
		$T anonro mprotw-kept mapfiles-write sysvro mprotw-kept level || return 1
	# pinned pages stay writable after munmap: no demotion while pinned
	run_t "uring-fixbuf OK|read EACCES|uring-unreg OK|read OK|level UNTRUSTED PUBLIC|" \
		$T uring-fixbuf read $L/untrusted uring-unreg read $L/untrusted level || return 1
	# memfd_secret: memory outside the lattice
	got=$($T secret-map)
	if [ "$got" = "secret-map ENOSYS" ]; then
		echo "@@VAL memfd_secret unavailable"
		run_t "read OK|secret-map ENOSYS|" $T read $L/untrusted secret-map || return 1
	else
		[ "$got" = "secret-map OK" ] || { fail "secret-map as SYSTEM: $got"; return 1; }
		run_t "read OK|secret-map EACCES|" $T read $L/untrusted secret-map || return 1
	fi
	# userfaultfd fills another process's memory as process_vm_writev does
	p0=$(counter denied_ptrace)
	run_t "uffd-child OK|read OK|uffd-copy EACCES|" $T uffd-child read $L/untrusted uffd-copy ||
		return 1
	run_t "uffd-child OK|uffd-copy OK|level SYSTEM PUBLIC|" $T uffd-child uffd-copy level ||
		return 1
	more_than denied_ptrace "$p0"
}

# permissive: the flows happen, are counted; off: nothing
scn_lattice_data_modes() {
	need_devpts || return 1
	slimctl mode permissive || { fail "slimctl mode permissive failed"; return 1; }
	p0=$(counter permissive_would_deny)
	rc=0
	run_t "eventfd-from OK|level UNTRUSTED PUBLIC|anonro OK|mprotw-kept OK|nl-multicast OK|" \
		$T eventfd-from $L/untrusted level anonro mprotw-kept nl-multicast || rc=1
	slimctl mode off || { fail "slimctl mode off failed"; return 1; }
	[ $rc = 0 ] && { run_t "eventfd-from OK|pty-from OK|nl-from OK|zc-recv OK|level SYSTEM PUBLIC|" \
		$T eventfd-from $L/untrusted pty-from $L/untrusted nl-from $L/untrusted zc-recv level ||
		rc=1; }
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	[ $rc = 0 ] || return 1
	more_than permissive_would_deny "$p0" 2 || return 1
	# the log names the object
	sleep 6
	dmesg -c >/dev/null
	$T eventfd-from $L/untrusted >/dev/null 2>&1
	dmesg | grep -q 'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: read from a (eventfd)$' ||
		{ fail "no log line for the eventfd: $(dmesg | tail -3)"; return 1; }
}
