# lattice_ipc.sh - the lattice's escape paths (sourced by scenarios.sh,
# after lattice.sh, whose lattice_load made the files in $L and whose
# run_t, counter and $T these use): what one process passes to another
# (pipes, FIFOs, UNIX sockets, descriptors, SysV and POSIX IPC, splice),
# what it does to another (ptrace, its memory, signals), to a file's
# metadata, and through mappings and io_uring. The rules are in
# kernel/lattice_ipc.c and kernel/lattice_splice.c; the probe's operations
# (slimtest_ipc.c, slimtest_proc.c, slimtest_uring.c, slimtest_splice.c)
# all succeed on a kernel without slim.ko.

LATTICE_IPC_SCENARIOS="lattice_ipc_reload lattice_ipc_pipe lattice_ipc_fifo
lattice_ipc_unix lattice_ipc_scm_rights lattice_ipc_sysv_msg lattice_ipc_sysv_shm
lattice_ipc_posix_shm lattice_ipc_mqueue lattice_ipc_splice lattice_ipc_ptrace lattice_ipc_signal lattice_ipc_metadata
lattice_ipc_mappings lattice_ipc_io_uring lattice_ipc_permissive lattice_ipc_off
lattice_ipc_log_lines lattice_ipc_no_leaks"

# more_than NAME BEFORE [N]: counter NAME grew by at least N (default 1)
more_than() {
	now=$(counter "$1")
	[ "$now" -ge $(($2 + ${3:-1})) ] ||
		{ fail "$1 $2 -> $now, want at least ${3:-1} more"; return 1; }
}

# the module as lattice_load loaded it (lattice_events_limit left it
# loaded with a tiny record budget)
scn_lattice_ipc_reload() {
	rmmod slim || { fail "rmmod failed"; return 1; }
	insmod /lib/slim.ko lock=0 pcr=$PCR mode=enforce ||
		{ fail "insmod mode=enforce failed"; return 1; }
	[ "$(slimctl mode)" = enforce ] || { fail "mode is $(slimctl mode)"; return 1; }
	echo "@@VAL ipc_objects_at_load $(counter object_states)"
	run_t "level SYSTEM PUBLIC|" $T level
}

# a pipe carries its writer's levels, to a reader already waiting in it
# (pipe-from) and to one that reads data queued before (pipe-queued)
scn_lattice_ipc_pipe() {
	i0=$(counter demotions_ipc)
	run_t "level SYSTEM PUBLIC|pipe-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T level pipe-from $L/untrusted level write $L/sys || return 1
	run_t "pipe-queued OK|level UNTRUSTED PUBLIC|" $T pipe-queued $L/untrusted level || return 1
	run_t "pipe-from OK|level USER PUBLIC|" $T pipe-from $L/user level || return 1
	# a SYSTEM writer changes nothing
	run_t "pipe-from OK|pipe-queued OK|level SYSTEM PUBLIC|" \
		$T pipe-from - pipe-queued - level || return 1
	# secrecy rises through a pipe
	run_t "pipe-from OK|level SYSTEM SYSTEM_SENSITIVE|udp-send EACCES|" \
		$T pipe-from $L/secret level udp-send || return 1
	# a guard reads a pipe as it reads a file
	run_t "pipe-from OK|level SYSTEM PUBLIC guard-read=UNTRUSTED|write OK|" \
		$L/sanitizer pipe-from $L/untrusted level write $L/sys || return 1
	more_than demotions_ipc "$i0" 3
}

# a FIFO keeps the lowest level written into it while its inode lives
scn_lattice_ipc_fifo() {
	run_t "fifo-from OK|level UNTRUSTED PUBLIC|" $T fifo-from $L/fifo $L/untrusted level || return 1
	run_t "fifo-from OK|level UNTRUSTED PUBLIC|" $T fifo-from $L/fifo - level || return 1
	rm -f $L/fifo
	run_t "fifo-from OK|level SYSTEM PUBLIC|" $T fifo-from $L/fifo2 - level || return 1
	rm -f $L/fifo2
}

scn_lattice_ipc_unix() {
	for type in stream dgram seqpacket; do
		run_t "unix-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
			$T unix-from $type $L/untrusted level write $L/sys || return 1
		run_t "unix-from OK|level SYSTEM PUBLIC|" $T unix-from $type - level || return 1
	done
	for type in stream dgram; do
		run_t "unix-named OK|level UNTRUSTED PUBLIC|" \
			$T unix-named $type $L/sock $L/untrusted level || return 1
		run_t "unix-named OK|level SYSTEM SYSTEM_SENSITIVE|" \
			$T unix-named $type $L/sock $L/secret level || return 1
		run_t "unix-named OK|level SYSTEM PUBLIC|" $T unix-named $type $L/sock - level ||
			return 1
	done
}

# SCM_RIGHTS passes a descriptor, not a level: receiving it from a SYSTEM
# sender changes nothing, reading through it is a read, writing through it
# is checked against the receiver's levels
scn_lattice_ipc_scm_rights() {
	# the sender is a guard (guard-read=UNTRUSTED): it opens the lower file
	# and stays SYSTEM, so the byte that comes with the descriptor is SYSTEM
	rm -f $L/scm
	$L/sanitizer scm-serve $L/scm $L/untrusted r >/tmp/scm-serve.out 2>&1 &
	run_t "scm-connect OK|level SYSTEM PUBLIC|readfd OK|level UNTRUSTED PUBLIC|" \
		$T scm-connect $L/scm level readfd level || { wait; return 1; }
	wait
	[ "$(cat /tmp/scm-serve.out)" = "scm-serve OK" ] ||
		{ fail "the sender: $(cat /tmp/scm-serve.out)"; return 1; }
	rm -f $L/scm
	before=$(cat $L/sys)
	run_t "scm-send OK|read OK|scm-take OK|writefd EACCES|level UNTRUSTED PUBLIC|" \
		$T scm-send $L/sys w read $L/untrusted scm-take writefd level || return 1
	[ "$(cat $L/sys)" = "$before" ] || { fail "$L/sys was written through a passed descriptor"; return 1; }
	# the same descriptor in a SYSTEM process writes
	run_t "scm-send OK|scm-take OK|writefd OK|" $T scm-send $L/sys w scm-take writefd
}

scn_lattice_ipc_sysv_msg() {
	i0=$(counter demotions_ipc)
	run_t "msg-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T msg-from $L/untrusted level write $L/sys || return 1
	run_t "msg-queued OK|level UNTRUSTED PUBLIC|" $T msg-queued $L/untrusted level || return 1
	run_t "msg-from OK|level SYSTEM SYSTEM_SENSITIVE|" $T msg-from $L/secret level || return 1
	run_t "msg-from OK|msg-queued OK|level SYSTEM PUBLIC|" \
		$T msg-from - msg-queued - level || return 1
	more_than demotions_ipc "$i0" 2
}

# a segment keeps its creator's levels: attaching is a read, attaching
# writable a write
scn_lattice_ipc_sysv_shm() {
	run_t "shm-from OK|level UNTRUSTED PUBLIC|" $T shm-from $L/untrusted level || return 1
	run_t "shm-from OK|level SYSTEM PUBLIC|" $T shm-from - level || return 1
	d0=$(counter denied_write_up)
	run_t "shm-create OK|read OK|shm-attach EACCES|shm-attach OK|level UNTRUSTED PUBLIC|" \
		$T shm-create read $L/untrusted shm-attach rw shm-attach ro level || return 1
	more_than denied_write_up "$d0" || return 1
	run_t "shm-create OK|shm-attach OK|shm-attach OK|" $T shm-create shm-attach rw shm-attach ro
}

# POSIX shared memory is a file in a tmpfs (/dev/shm): the file rules
scn_lattice_ipc_posix_shm() {
	mkdir -p /dev/shm
	grep -q ' /dev/shm tmpfs ' /proc/mounts || mount -t tmpfs shm /dev/shm ||
		{ fail "cannot mount /dev/shm"; return 1; }
	rm -f /dev/shm/slim.low /dev/shm/slim.sys
	run_t "read OK|create OK|" $T read $L/untrusted create /dev/shm/slim.low || return 1
	[ "$(label_of /dev/shm/slim.low)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "label of the segment: $(slimctl show /dev/shm/slim.low)"; return 1; }
	run_t "openrw OK|level UNTRUSTED PUBLIC|" $T openrw /dev/shm/slim.low level || return 1
	run_t "create OK|read OK|openrw EACCES|" \
		$T create /dev/shm/slim.sys read $L/untrusted openrw /dev/shm/slim.sys || return 1
	rm -f /dev/shm/slim.low /dev/shm/slim.sys
}

# a POSIX message carries its sender's levels, to a receiver already
# waiting and to one that takes it from the queue
scn_lattice_ipc_mqueue() {
	i0=$(counter demotions_ipc)
	run_t "mq-from OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T mq-from $L/untrusted level write $L/sys || return 1
	run_t "mq-queued OK|level UNTRUSTED PUBLIC|" $T mq-queued $L/untrusted level || return 1
	run_t "mq-from OK|level SYSTEM SYSTEM_SENSITIVE|udp-send EACCES|" \
		$T mq-from $L/secret level udp-send || return 1
	run_t "mq-from OK|mq-queued OK|level SYSTEM PUBLIC|" $T mq-from - mq-queued - level || return 1
	more_than demotions_ipc "$i0" 2
}

# splice, tee and vmsplice move a pipe's data without read(2) or write(2):
# they carry its levels as a read and a write do
scn_lattice_ipc_splice() {
	before=$(cat $L/sys)
	# from a pipe a lower child wrote into a higher file: the splicer
	# takes the pipe's levels, so its write is up in integrity
	run_t "splice-out EACCES|level UNTRUSTED PUBLIC|" $T splice-out $L/untrusted $L/sys level ||
		return 1
	[ "$(cat $L/sys)" = "$before" ] || { fail "$L/sys was written by splice"; return 1; }
	echo spliced >$L/m6
	run_t "splice-out OK|level SYSTEM PUBLIC|" $T splice-out - $L/m6 level || return 1
	# from an IP socket: a receive
	run_t "splice-sock OK|level UNTRUSTED PUBLIC|write EACCES|" $T splice-sock level write $L/sys ||
		return 1
	run_t "tee-from OK|level UNTRUSTED PUBLIC|" $T tee-from $L/untrusted level || return 1
	run_t "tee-from OK|level SYSTEM PUBLIC|" $T tee-from - level || return 1
	run_t "vmsplice-from OK|level SYSTEM SYSTEM_SENSITIVE|" $T vmsplice-from $L/secret level ||
		return 1
	# into a pipe a SYSTEM process reads: the pipe takes the writer's levels
	run_t "pipe-reader OK|read OK|pipe-reader UNTRUSTED PUBLIC|vmsplice-to OK|" \
		$T pipe-reader read $L/untrusted vmsplice-to || return 1
	run_t "pipe-reader OK|pipe-reader SYSTEM PUBLIC|vmsplice-to OK|" $T pipe-reader vmsplice-to ||
		return 1
	run_t "pipe-reader OK|pipe-reader UNTRUSTED PUBLIC|splice-to OK|" \
		$T pipe-reader splice-to $L/untrusted || return 1
	# into a socket (6.1: sendpage, 6.12: sendmsg): a UNIX stream carries
	# the splicer's levels, and secret data does not go out on IP
	run_t "splice-unix OK|level UNTRUSTED PUBLIC|" $T splice-unix $L/untrusted level || return 1
	run_t "splice-unix OK|level SYSTEM PUBLIC|" $T splice-unix - level || return 1
	run_t "sendfile-udp OK|read OK|level SYSTEM SYSTEM_SENSITIVE|sendfile-udp EACCES|" \
		$T sendfile-udp $L/sys read $L/secret level sendfile-udp $L/sys
}

# ptrace, /proc/PID/mem and process_vm_writev up in integrity are refused
# with EACCES (process_vm_writev reports it as EPERM: the kernel turns
# EACCES into EPERM there); down in integrity the tracer reads its target
scn_lattice_ipc_ptrace() {
	p0=$(counter denied_ptrace)
	run_t "spawn OK|read OK|ptrace-attach EACCES|proc-mem-write EACCES|vm-write EPERM|" \
		$T spawn - read $L/untrusted ptrace-attach proc-mem-write vm-write || return 1
	more_than denied_ptrace "$p0" 3 || return 1
	run_t "spawn OK|level SYSTEM PUBLIC|ptrace-attach OK|level UNTRUSTED PUBLIC|" \
		$T spawn $L/untrusted level ptrace-attach level || return 1
	run_t "spawn OK|level SYSTEM PUBLIC|vm-write OK|level UNTRUSTED PUBLIC|" \
		$T spawn $L/untrusted level vm-write level || return 1
	# equal levels: unchanged
	run_t "spawn OK|ptrace-attach OK|proc-mem-write OK|vm-write OK|level SYSTEM PUBLIC|" \
		$T spawn - ptrace-attach proc-mem-write vm-write level || return 1
	# down in secrecy is refused too: a SYSTEM_SENSITIVE tracer of a PUBLIC process
	run_t "spawn OK|read OK|ptrace-attach EACCES|" $T spawn - read $L/secret ptrace-attach
}

# signals up in integrity are refused, but SIGCHLD and the null signal
scn_lattice_ipc_signal() {
	s0=$(counter denied_signal)
	run_t "spawn OK|read OK|kill EPERM|kill EPERM|kill OK|kill OK|" \
		$T spawn - read $L/untrusted kill TERM kill USR1 kill CHLD kill 0 || return 1
	more_than denied_signal "$s0" 2 || return 1
	run_t "spawn OK|kill OK|" $T spawn $L/untrusted kill TERM || return 1
	run_t "spawn OK|kill OK|" $T spawn - kill TERM || return 1
	# SIGIO is sent for the task that named the file's owner: a lower one
	# cannot make its I/O signal a higher process (dropped, as the
	# kernel drops a SIGIO the credentials refuse); a higher owner still
	# hears of a lower writer's data, and a lower owner of its own
	s0=$(counter denied_signal)
	run_t "sigio-from EAGAIN|level SYSTEM PUBLIC|" $T sigio-from $L/untrusted level || return 1
	more_than denied_signal "$s0" || return 1
	run_t "sigio-from OK|" $T sigio-from - || return 1
	run_t "sigio-own OK|level SYSTEM PUBLIC|" $T sigio-own $L/untrusted level || return 1
	run_t "read OK|sigio-from OK|sigio-own OK|" $T read $L/untrusted sigio-from $L/untrusted \
		sigio-own -
}

# a demoted process may not truncate, chmod, chown, touch, set an xattr
# on, rename, replace or unlink a file of higher integrity
scn_lattice_ipc_metadata() {
	m0=$(counter denied_metadata)
	for f in m1 m2 m3; do echo meta >$L/$f; done
	run_t "read OK|truncate EACCES|chmod EACCES|chown EACCES|utime EACCES|setxattr EACCES|rename EACCES|unlink EACCES|" \
		$T read $L/untrusted truncate $L/m1 chmod $L/m1 chown $L/m1 utime $L/m1 \
		setxattr $L/m1 trusted.slimtest 01 rename $L/m1 $L/m9 unlink $L/m1 || return 1
	run_t "openw OK|read OK|ftruncfd EACCES|" $T openw $L/m1 read $L/untrusted ftruncfd || return 1
	# a POSIX ACL (6.1: through setxattr; 6.12: through inode_set_acl)
	acl=0200000001000600ffffffff04000400ffffffff20000400ffffffff
	run_t "read OK|setxattr EACCES|" $T read $L/untrusted setxattr $L/m1 system.posix_acl_access $acl ||
		return 1
	[ "$(cat $L/m1)" = meta ] && [ -e $L/m1 ] && [ ! -e $L/m9 ] ||
		{ fail "$L/m1 was changed"; return 1; }
	# replacing a higher file by a rename
	rm -f $L/lowmade
	run_t "read OK|create OK|rename EACCES|" \
		$T read $L/untrusted create $L/lowmade rename $L/lowmade $L/m2 || return 1
	[ "$(cat $L/m2)" = meta ] || { fail "$L/m2 was replaced"; return 1; }
	more_than denied_metadata "$m0" 10 || return 1
	# its own lower file: allowed
	run_t "read OK|truncate OK|chmod OK|utime OK|rename OK|unlink OK|" \
		$T read $L/untrusted truncate $L/lowmade chmod $L/lowmade utime $L/lowmade \
		rename $L/lowmade $L/lowmade2 unlink $L/lowmade2 || return 1
	# a SYSTEM process: allowed
	run_t "truncate OK|chmod OK|utime OK|setxattr OK|setxattr OK|rename OK|unlink OK|" \
		$T truncate $L/m3 chmod $L/m3 utime $L/m3 setxattr $L/m3 trusted.slimtest 01 \
		setxattr $L/m3 system.posix_acl_access $acl rename $L/m3 $L/m4 unlink $L/m4
}

# write revocation: no demotion while the process shares writable memory
# it could no longer write; a later mprotect(PROT_WRITE) is a write
scn_lattice_ipc_mappings() {
	d0=$(counter denied_demotion_mapped)
	echo map >$L/map
	run_t "openrw OK|mmapkeep OK|read EACCES|level SYSTEM PUBLIC|unmap OK|read OK|level UNTRUSTED PUBLIC|" \
		$T openrw $L/map mmapkeep read $L/untrusted level unmap read $L/untrusted level || return 1
	more_than denied_demotion_mapped "$d0" || return 1
	# the same through a pipe and a SysV message (the children that send
	# unmap their copy of the mapping first)
	# (a refused message stays queued and is skipped: msgrcv sees none)
	run_t "openrw OK|mmapkeep OK|pipe-from EACCES|msg-queued ENOMSG|level SYSTEM PUBLIC|" \
		$T openrw $L/map mmapkeep pipe-from $L/untrusted msg-queued $L/untrusted level || return 1
	# a refused POSIX message is consumed: mq_receive fails with EFAULT
	run_t "openrw OK|mmapkeep OK|mq-queued EFAULT|splice-sock EACCES|level SYSTEM PUBLIC|" \
		$T openrw $L/map mmapkeep mq-queued $L/untrusted splice-sock level || return 1
	run_t "openrw OK|mmapro OK|read OK|mprotw EACCES|" \
		$T openrw $L/map mmapro read $L/untrusted mprotw || return 1
	run_t "openrw OK|mmapro OK|mprotw OK|level SYSTEM PUBLIC|" \
		$T openrw $L/map mmapro mprotw level
}

# the work an io_uring worker does for a process obeys its rules
scn_lattice_ipc_io_uring() {
	run_t "uring-read OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T uring-read $L/untrusted level write $L/sys || return 1
	before=$(cat $L/sys)
	run_t "openw OK|read OK|uring-writefd EACCES|" $T openw $L/sys read $L/untrusted uring-writefd ||
		return 1
	[ "$(cat $L/sys)" = "$before" ] || { fail "$L/sys written by an io_uring worker"; return 1; }
	run_t "openrw OK|uring-readfd OK|level SYSTEM PUBLIC|uring-writefd OK|" \
		$T openrw $L/sys uring-readfd level uring-writefd || return 1
	run_t "openrw OK|uring-readfd OK|level UNTRUSTED PUBLIC|" $T openrw $L/untrusted uring-readfd level
}

# permissive: what enforce refuses is allowed and counted, the levels
# still flow; no denial is counted
scn_lattice_ipc_permissive() {
	slimctl mode permissive || { fail "slimctl mode permissive failed"; return 1; }
	p0=$(counter permissive_would_deny)
	t0=$(counter denied_ptrace)
	s0=$(counter denied_signal)
	m0=$(counter denied_metadata)
	echo perm >$L/perm
	rc=0
	run_t "pipe-from OK|level UNTRUSTED PUBLIC|" $T pipe-from $L/untrusted level || rc=1
	[ $rc = 0 ] && { run_t "spawn OK|read OK|ptrace-attach OK|vm-write OK|truncate OK|kill OK|" \
		$T spawn - read $L/untrusted ptrace-attach vm-write truncate $L/perm kill TERM || rc=1; }
	[ $rc = 0 ] && { run_t "openrw OK|mmapkeep OK|read OK|level UNTRUSTED PUBLIC|" \
		$T openrw $L/map mmapkeep read $L/untrusted level || rc=1; }
	[ $rc = 0 ] && { run_t "splice-out OK|mq-from OK|level UNTRUSTED PUBLIC|" \
		$T splice-out $L/untrusted $L/perm mq-from $L/untrusted level || rc=1; }
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	[ $rc = 0 ] || return 1
	# ptrace, process_vm_writev, truncate, kill, the mapped demotion,
	# the spliced write: 6
	more_than permissive_would_deny "$p0" 6 || return 1
	[ "$(counter denied_ptrace)" = "$t0" ] && [ "$(counter denied_signal)" = "$s0" ] &&
		[ "$(counter denied_metadata)" = "$m0" ] ||
		{ fail "a denial was counted in permissive mode"; return 1; }
}

scn_lattice_ipc_off() {
	slimctl mode off || { fail "slimctl mode off failed"; return 1; }
	rc=0
	run_t "pipe-from OK|unix-from OK|msg-from OK|mq-from OK|splice-sock OK|level SYSTEM PUBLIC|" \
		$T pipe-from $L/untrusted unix-from stream $L/untrusted msg-from $L/untrusted \
		mq-from $L/untrusted splice-sock level || rc=1
	[ $rc = 0 ] && { run_t "spawn OK|read OK|ptrace-attach OK|kill OK|" \
		$T spawn - read $L/untrusted ptrace-attach kill TERM || rc=1; }
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	return $rc
}

# One line of each kind: the log is rate limited (20 lines in 5 s), so
# this waits for a full budget and makes each line once.
scn_lattice_ipc_log_lines() {
	sleep 6
	dmesg -c >/dev/null
	{
		$T pipe-from $L/untrusted
		$T unix-from stream $L/untrusted
		$T msg-from $L/untrusted
		$T shm-from $L/untrusted
		$T spawn $L/untrusted ptrace-attach
		$T spawn - read $L/untrusted ptrace-attach kill USR1
		$T spawn - read $L/secret ptrace-attach
		echo log >$L/m5
		$T read $L/untrusted chmod $L/m5
		$T openrw $L/map mmapkeep read $L/untrusted
	} >/dev/null 2>&1
	dmesg >/tmp/dmesg.txt
	for want in \
		'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: .*(pipe)$' \
		'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: .*(UNIX socket)$' \
		'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: .*(SysV message)$' \
		'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: .*(SysV shared memory)$' \
		'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: .*(process)$' \
		'slim: denied: pid=[0-9]* comm=slimtest process=[0-9]* task=UNTRUSTED/PUBLIC object=SYSTEM/PUBLIC rule="no access to a process up in integrity"' \
		'slim: denied: pid=[0-9]* comm=slimtest process=[0-9]* task=SYSTEM/SYSTEM_SENSITIVE object=SYSTEM/PUBLIC rule="no access to a process down in secrecy"' \
		'slim: denied: pid=[0-9]* comm=slimtest process=[0-9]* task=UNTRUSTED/PUBLIC object=SYSTEM/PUBLIC rule="no signal up in integrity"' \
		'slim: denied: pid=[0-9]* comm=slimtest file=tmpfs:/m5 task=UNTRUSTED/PUBLIC object=SYSTEM/PUBLIC rule="no change of a file up in integrity"' \
		'slim: denied: pid=[0-9]* comm=slimtest file=/lab/untrusted task=SYSTEM/PUBLIC object=UNTRUSTED/PUBLIC rule="no demotion while sharing writable memory"'; do
		grep -q "$want" /tmp/dmesg.txt || { fail "no kernel log line like: $want"; return 1; }
	done
}

# over a hundred pipes, sockets, segments and messages later the objects'
# states are back where they were
scn_lattice_ipc_no_leaks() {
	sleep 1
	o0=$(counter object_states)
	i=0
	while [ $i -lt 15 ]; do
		$T pipe-from $L/untrusted unix-from stream $L/untrusted unix-from dgram - \
			unix-named dgram $L/sock - msg-from $L/untrusted shm-from - \
			mq-from $L/untrusted mq-queued $L/untrusted tee-from $L/untrusted \
			fifo-from $L/fifo3 $L/untrusted >/dev/null 2>&1
		i=$((i + 1))
	done
	rm -f $L/fifo3
	sync
	echo 2 >/proc/sys/vm/drop_caches
	sleep 2
	o1=$(counter object_states)
	echo "@@VAL ipc_objects $o0 -> $o1"
	[ "$o1" -le $((o0 + 2)) ] || { fail "object_states $o0 -> $o1 after 15 rounds"; return 1; }
}
