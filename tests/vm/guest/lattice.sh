# lattice.sh - the SLIM lattice scenarios (sourced by scenarios.sh). The
# probe is /bin/slimtest (tests/vm/guest/slimtest.c): it runs operations
# in one process and prints one line each, so every check below compares
# the whole sequence of what happened to one process. The shell running
# the scenarios never reads a lower-integrity file itself: it stays SYSTEM.
L=/lab
T=slimtest

LATTICE_SCENARIOS="lattice_load lattice_read_down lattice_user_level
lattice_write_revoked lattice_secrecy lattice_ip_send lattice_ip_receive
lattice_sanitizer lattice_declassifier lattice_fork_exec lattice_new_file lattice_dirs
lattice_label_protected lattice_bad_input lattice_mmap_write
lattice_permissive lattice_off
lattice_log_lines lattice_ps_status lattice_measure_system lattice_no_leaks
lattice_events lattice_events_limit"

# run_t WANT OP...: slimtest OP... must print exactly WANT (lines joined by |).
# What a demoted process writes into a pipe carries its levels, so the
# output is read by a guard ($G: busybox labelled guard-read=UNTRUSTED
# guard-write=PUBLIC, made by lattice_load), which passes it on as SYSTEM
# PUBLIC data: the scenario shell stays SYSTEM PUBLIC.
G=$L/busybox
run_t() {
	want=$1
	shift
	got=$("$@" 2>&1 | $G cat | tr '\n' '|')
	[ "$got" = "$want" ] || { fail "$*: got '$got', want '$want'"; return 1; }
}

counter() { sed -n "s/^$1 //p" $K/counters; }
label_of() { slimctl show "$1" | cut -f2; }

scn_lattice_load() {
	insmod /lib/slim.ko lock=0 pcr=$PCR mode=enforce ||
		{ fail "insmod mode=enforce failed"; return 1; }
	[ "$(slimctl mode)" = enforce ] || { fail "mode is $(slimctl mode)"; return 1; }
	for f in mode status counters tasks relabel watch; do
		[ -e $K/$f ] || { fail "$K/$f missing"; return 1; }
	done
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	mkdir -p $L
	mount -t tmpfs lab $L || { fail "cannot mount a tmpfs"; return 1; }
	# the lab is a shared place (sticky, writable by all, as /tmp): lower
	# tasks may add names to it (lattice_dirs tests directories)
	chmod 1777 $L
	# the mount made after the module was loaded is watched before
	# mount(8) returned: no open on it goes unchecked
	c0=$(counter unwatched_opens)
	echo data >$L/sys
	[ "$(counter unwatched_opens)" = "$c0" ] ||
		{ fail "an open on the new tmpfs was not watched"; return 1; }
	for f in untrusted user secret pub; do echo "$f" >$L/$f; done
	for f in slimtest sanitizer declass; do cp /bin/slimtest $L/$f; done
	cp /bin/busybox $G
	slimctl relabel "UNTRUSTED PUBLIC" $L/untrusted &&
		slimctl relabel "USER PUBLIC" $L/user &&
		slimctl relabel "SYSTEM SYSTEM_SENSITIVE" $L/secret &&
		slimctl relabel "SYSTEM PUBLIC guard-read=UNTRUSTED" $L/sanitizer &&
		slimctl relabel "SYSTEM PUBLIC guard-write=PUBLIC" $L/declass &&
		slimctl relabel "SYSTEM PUBLIC guard-read=UNTRUSTED guard-write=PUBLIC" $G ||
		{ fail "slimctl relabel failed"; return 1; }
	[ "$(label_of $L/untrusted)" = "UNTRUSTED PUBLIC" ] &&
		[ "$(label_of $L/secret)" = "SYSTEM SYSTEM_SENSITIVE" ] &&
		[ "$(label_of $L/sanitizer)" = "SYSTEM PUBLIC guard-read=UNTRUSTED" ] ||
		{ fail "labels: $(slimctl show $L/* | tr '\n' '|')"; return 1; }
	[ "$(label_of $L/sys)" = "SYSTEM PUBLIC" ] ||
		{ fail "unlabeled file: $(slimctl show $L/sys)"; return 1; }
	run_t "level SYSTEM PUBLIC|" $T level || return 1
	# the default policy as read back; its digest is in the load's policy
	# record (checked on the host, lattice_events)
	echo "@@VAL policy_at_load $(sha256sum <$K/policy | cut -d' ' -f1)"
}

scn_lattice_read_down() {
	d0=$(counter denied_write_up)
	m0=$(counter demotions)
	run_t "level SYSTEM PUBLIC|read OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T level read $L/untrusted level write $L/sys || return 1
	[ "$(counter denied_write_up)" -gt "$d0" ] || { fail "denied_write_up did not count"; return 1; }
	[ "$(counter demotions)" -gt "$m0" ] || { fail "demotions did not count"; return 1; }
	[ "$(cat $L/sys)" = data ] || { fail "$L/sys changed: $(cat $L/sys)"; return 1; }
	# the same write from a SYSTEM task is allowed
	run_t "write OK|" $T write $L/sys
}

scn_lattice_user_level() {
	run_t "read OK|level USER PUBLIC|write OK|write EACCES|read OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T read $L/user level write $L/user write $L/sys \
		read $L/untrusted level write $L/user
}

# a write opened before the demotion is revoked by it
scn_lattice_write_revoked() {
	run_t "openw OK|writefd OK|read OK|writefd EACCES|level UNTRUSTED PUBLIC|" \
		$T openw $L/pub writefd read $L/untrusted writefd level
}

scn_lattice_secrecy() {
	before=$(cat $L/pub)
	run_t "read OK|level SYSTEM SYSTEM_SENSITIVE|write EACCES|udp-send EACCES|write OK|" \
		$T read $L/secret level write $L/pub udp-send write $L/secret || return 1
	[ "$(cat $L/pub)" = "$before" ] || { fail "$L/pub changed"; return 1; }
}

scn_lattice_ip_send() {
	run_t "udp-send OK|level SYSTEM PUBLIC|" $T udp-send level
}

scn_lattice_ip_receive() {
	r0=$(counter demotions_ip_receive)
	run_t "udp-recv OK|level UNTRUSTED PUBLIC|write EACCES|" \
		$T udp-recv level write $L/sys || return 1
	[ "$(counter demotions_ip_receive)" -gt "$r0" ] ||
		{ fail "demotions_ip_receive did not count"; return 1; }
}

scn_lattice_sanitizer() {
	g0=$(counter guard_reads)
	run_t "read OK|udp-recv OK|level SYSTEM PUBLIC guard-read=UNTRUSTED|write OK|" \
		$L/sanitizer read $L/untrusted udp-recv level write $L/sys || return 1
	[ "$(counter guard_reads)" -gt "$g0" ] || { fail "guard_reads did not count"; return 1; }
}

scn_lattice_declassifier() {
	run_t "read OK|level SYSTEM SYSTEM_SENSITIVE guard-write=PUBLIC|write OK|udp-send OK|" \
		$L/declass read $L/secret level write $L/pub udp-send
}

# levels survive fork and exec; guards come and go with the program
scn_lattice_fork_exec() {
	run_t "read OK|fork-level UNTRUSTED PUBLIC|level UNTRUSTED PUBLIC|" \
		$T read $L/untrusted fork-level exec $L/slimtest level || return 1
	run_t "level SYSTEM PUBLIC guard-read=UNTRUSTED|" \
		$T exec $L/sanitizer level || return 1
	run_t "read OK|level UNTRUSTED PUBLIC|" \
		$L/sanitizer exec $L/slimtest read $L/untrusted level
}

# a new file takes its creator's levels: in security.slim on tmpfs, in
# memory on ramfs (no xattrs)
scn_lattice_new_file() {
	run_t "read OK|create OK|" $T read $L/untrusted create $L/made || return 1
	[ "$(label_of $L/made)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "label of the new file: $(slimctl show $L/made)"; return 1; }
	run_t "read OK|level UNTRUSTED PUBLIC|" $T read $L/made level || return 1
	# on the initramfs root file system, in a
	# directory labeled for lower tasks (lattice_dirs)
	mkdir -p /root/low
	slimctl relabel "UNTRUSTED PUBLIC" /root/low || { fail "relabel /root/low"; return 1; }
	run_t "read OK|create OK|write OK|" \
		$T read $L/untrusted create /root/low/made write /root/low/made || return 1
	run_t "read OK|level UNTRUSTED PUBLIC|" $T read /root/low/made level
}

# directories: adding a name to a directory of higher integrity, or
# removing one from it, is a write up (create, mkdir, symlink, link,
# mknod, rename into or out of, unlink, rmdir); a directory labeled lower
# is the lower task's own; a directory a lower task makes takes its label;
# a sticky directory writable by all is shared
scn_lattice_dirs() {
	d0=$(counter denied_write_up)
	e0=$(($(counter events_written) + $(counter events_dropped)))
	D=$L/dirs
	rm -rf $D
	mkdir -p $D/sys/sub $D/low $D/shared
	chmod 755 $D/sys $D/low
	chmod 1777 $D/shared
	# lower files in the SYSTEM directory and in the shared lab: the file
	# rules alone let a lower task remove, move or link them
	echo low >$D/sys/lowfile
	echo low >$D/shared/own
	slimctl relabel "UNTRUSTED PUBLIC" $D/sys/lowfile $D/shared/own ||
		{ fail "slimctl relabel failed"; return 1; }
	run_t "read OK|create EACCES|mkdir EACCES|symlink EACCES|link EACCES|mkfifo EACCES|rename EACCES|rename EACCES|unlink EACCES|rmdir EACCES|level UNTRUSTED PUBLIC|" \
		$T read $L/untrusted create $D/sys/new mkdir $D/sys/d symlink /etc $D/sys/s \
		link $D/shared/own $D/sys/l mkfifo $D/sys/f rename $D/shared/own $D/sys/moved \
		rename $D/sys/lowfile $D/shared/taken unlink $D/sys/lowfile rmdir $D/sys/sub level ||
		return 1
	[ "$(ls $D/sys | tr '\n' ' ')" = "lowfile sub " ] ||
		{ fail "$D/sys changed: $(ls $D/sys | tr '\n' ' ')"; return 1; }
	# a refused record for each of the ten (written, or counted as
	# dropped by the records' rate limit), and the demotion's
	# (queued from atomic context: written by a work item soon after)
	n=0
	while :; do
		e1=$(($(counter events_written) + $(counter events_dropped)))
		[ $((e1 - e0)) -ge 11 ] || [ $n -ge 20 ] && break
		sleep 0.5
		n=$((n + 1))
	done
	[ $((e1 - e0)) -ge 11 ] ||
		{ fail "lattice records $e0 -> $e1 for a demotion and ten refused directory changes"; return 1; }
	# a directory labeled lower: the lower task's own
	slimctl relabel "UNTRUSTED PUBLIC" $D/low || { fail "cannot label a directory"; return 1; }
	[ "$(label_of $D/low)" = "UNTRUSTED PUBLIC" ] &&
		[ "$(label_of $D/sys)" = "SYSTEM PUBLIC" ] ||
		{ fail "directory labels: $(slimctl show $D/low $D/sys | tr '\n' '|')"; return 1; }
	more_than denied_write_up "$d0" 9 || return 1
	# logged (once more after the rate limit's 5 s window when the earlier
	# scenarios used it up)
	if ! dmesg | grep -q 'comm=slimtest file=tmpfs:.*dirs/sys/new .*rule="no change of a directory up in integrity"'; then
		sleep 6
		run_t "read OK|create EACCES|" $T read $L/untrusted create $D/sys/new2 || return 1
		dmesg | grep -q 'comm=slimtest file=tmpfs:.*dirs/sys/new2 .*rule="no change of a directory up in integrity"' ||
			{ fail "no log line for the directory"; return 1; }
	fi
	# control: in its own directory, and in a shared one, it may; a
	# directory it makes is its own (it can create inside it)
	run_t "read OK|create OK|mkdir OK|create OK|symlink OK|link OK|mkfifo OK|rename OK|unlink OK|unlink OK|unlink OK|unlink OK|unlink OK|rmdir OK|create OK|unlink OK|" \
		$T read $L/untrusted create $D/low/n1 mkdir $D/low/d1 create $D/low/d1/inner \
		symlink n1 $D/low/s1 link $D/low/n1 $D/low/l1 mkfifo $D/low/f1 \
		rename $D/low/n1 $D/low/n2 unlink $D/low/n2 unlink $D/low/s1 unlink $D/low/l1 \
		unlink $D/low/f1 unlink $D/low/d1/inner rmdir $D/low/d1 \
		create $D/shared/x unlink $D/shared/x || return 1
	run_t "read OK|mkdir OK|" $T read $L/untrusted mkdir $D/low/kept || return 1
	[ "$(label_of $D/low/kept)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "label of a lower task's new directory: $(slimctl show $D/low/kept)"; return 1; }
	# control: a SYSTEM task adds and removes names in the SYSTEM directory
	run_t "create OK|mkdir OK|rmdir OK|unlink OK|rename OK|rename OK|level SYSTEM PUBLIC|" \
		$T create $D/sys/s1 mkdir $D/sys/sd rmdir $D/sys/sd unlink $D/sys/s1 \
		rename $D/sys/lowfile $D/sys/lf2 rename $D/sys/lf2 $D/sys/lowfile level || return 1
	# permissive: allowed and counted
	slimctl mode permissive || { fail "slimctl mode permissive failed"; return 1; }
	p0=$(counter permissive_would_deny)
	run_t "read OK|create OK|unlink OK|" $T read $L/untrusted create $D/sys/perm unlink $D/sys/perm
	rc=$?
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	[ $rc = 0 ] || return 1
	more_than permissive_would_deny "$p0" 1
}

scn_lattice_label_protected() {
	d0=$(counter denied_label_change)
	run_t "setlabel EPERM|" $T setlabel $L/untrusted "SYSTEM PUBLIC" || return 1
	[ "$(label_of $L/untrusted)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "label changed: $(slimctl show $L/untrusted)"; return 1; }
	[ "$(counter denied_label_change)" -gt "$d0" ] ||
		{ fail "denied_label_change did not count"; return 1; }
	# a demoted task may not relabel or change the mode, even as root
	rec=$(printf 'SYSTEM PUBLIC\t%s' $L/untrusted)
	run_t "read OK|put EPERM|put EPERM|" \
		$T read $L/untrusted put $K/relabel "$rec" put $K/mode permissive || return 1
	[ "$(label_of $L/untrusted)" = "UNTRUSTED PUBLIC" ] &&
		[ "$(slimctl mode)" = enforce ] ||
		{ fail "label or mode changed by a demoted task"; return 1; }
}

# hostile writes to the control files: the exact errno, nothing changed;
# without CAP_MAC_ADMIN (still uid 0) relabel and mode are refused; an
# unparsable label is the lowest integrity
scn_lattice_bad_input() {
	long=$(head -c 5000 /dev/zero | tr '\0' A)
	run_t "put EINVAL|put EINVAL|put EINVAL|put ENOENT|put EINVAL|put EINVAL|put EINVAL|put EINVAL|put EINVAL|" \
		$T put $K/relabel "SYSTEM PUBLIC" \
		put $K/relabel "$(printf 'ROOT PUBLIC\t%s' $L/sys)" \
		put $K/relabel "$(printf 'SYSTEM PUBLIC\tlab/sys')" \
		put $K/relabel "$(printf 'SYSTEM PUBLIC\t/nonexistent/x')" \
		put $K/relabel "$(printf 'SYSTEM PUBLIC\t%s' /dev/null)" \
		put $K/relabel "$long" \
		put $K/mode paranoid \
		put $K/mode "$long" \
		put $K/watch relative/path || return 1
	[ "$(slimctl mode)" = enforce ] && [ "$(label_of $L/sys)" = "SYSTEM PUBLIC" ] ||
		{ fail "mode or label changed by refused writes"; return 1; }
	rec=$(printf 'UNTRUSTED PUBLIC\t%s' $L/sys)
	run_t "dropcap OK|put EPERM|put EPERM|put EPERM|" \
		$T dropcap put $K/relabel "$rec" put $K/mode off put $K/watch / || return 1
	[ "$(slimctl mode)" = enforce ] && [ "$(label_of $L/sys)" = "SYSTEM PUBLIC" ] ||
		{ fail "mode or label changed without CAP_MAC_ADMIN"; return 1; }
	# a label nobody can parse, set while the module is off
	slimctl mode off || { fail "slimctl mode off failed"; return 1; }
	echo bad >$L/badlabel
	run_t "setlabel OK|" $T setlabel $L/badlabel "NOT A LABEL" || return 1
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	b0=$(counter bad_labels)
	run_t "level SYSTEM PUBLIC|read OK|level UNTRUSTED PUBLIC|" \
		$T level read $L/badlabel level || return 1
	[ "$(counter bad_labels)" -gt "$b0" ] || { fail "bad_labels did not count"; return 1; }
}

# a shared writable mapping of a file opened before the demotion
scn_lattice_mmap_write() {
	run_t "openrw OK|mmapfd OK|" $T openrw $L/sys mmapfd || return 1
	run_t "openrw OK|read OK|mmapfd EACCES|" \
		$T openrw $L/sys read $L/untrusted mmapfd
}

# every rule in permissive mode: what enforce denies is allowed and
# counted, demotions and secrecy raises still happen
scn_lattice_permissive() {
	slimctl mode permissive || { fail "slimctl mode permissive failed"; return 1; }
	p0=$(counter permissive_would_deny)
	u0=$(counter denied_write_up)
	w0=$(counter denied_write_down)
	s0=$(counter denied_ip_send)
	rc=0
	run_t "read OK|level UNTRUSTED PUBLIC|write OK|" \
		$T read $L/untrusted level write $L/sys || rc=1
	[ $rc = 0 ] && { run_t "openw OK|read OK|writefd OK|" \
		$T openw $L/pub read $L/untrusted writefd || rc=1; }
	[ $rc = 0 ] && { run_t "read OK|level SYSTEM SYSTEM_SENSITIVE|write OK|udp-send OK|" \
		$T read $L/secret level write $L/pub udp-send || rc=1; }
	[ $rc = 0 ] && { run_t "openrw OK|read OK|mmapfd OK|" \
		$T openrw $L/sys read $L/untrusted mmapfd || rc=1; }
	[ $rc = 0 ] && { run_t "setlabel OK|" $T setlabel $L/user "USER PUBLIC" || rc=1; }
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	[ $rc = 0 ] || return 1
	# open+write, revoked write, open+write down, send, mmap, label: 8
	[ "$(counter permissive_would_deny)" -ge $((p0 + 8)) ] ||
		{ fail "permissive_would_deny $p0 -> $(counter permissive_would_deny)"; return 1; }
	[ "$(counter denied_write_up)" = "$u0" ] && [ "$(counter denied_write_down)" = "$w0" ] &&
		[ "$(counter denied_ip_send)" = "$s0" ] ||
		{ fail "a denial was counted in permissive mode"; return 1; }
}

scn_lattice_off() {
	slimctl mode off || { fail "slimctl mode off failed"; return 1; }
	run_t "read OK|level SYSTEM PUBLIC|write OK|" \
		$T read $L/untrusted level write $L/sys
	rc=$?
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	return $rc
}

scn_lattice_log_lines() {
	dmesg >/tmp/dmesg.txt
	grep -q 'slim: denied: pid=[0-9]* comm=slimtest file=/lab/sys task=UNTRUSTED/PUBLIC object=SYSTEM/PUBLIC rule="no write up in integrity"' /tmp/dmesg.txt ||
		{ fail "no write-up denial line in the kernel log"; return 1; }
	grep -q 'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: read /lab/untrusted$' /tmp/dmesg.txt ||
		{ fail "no demotion line in the kernel log"; return 1; }
	grep -q 'slim: demoted: pid=[0-9]* comm=slimtest SYSTEM/PUBLIC -> UNTRUSTED/PUBLIC: received on (IP socket)$' /tmp/dmesg.txt ||
		{ fail "no IP receive demotion line in the kernel log"; return 1; }
	grep -q 'slim: denied: .*rule="no send above PUBLIC on an IP socket"' /tmp/dmesg.txt ||
		{ fail "no send denial line in the kernel log"; return 1; }
}

scn_lattice_ps_status() {
	$T read $L/untrusted exec /bin/sleep 30 >/dev/null &
	pid=$!
	sleep 1
	line=$(slimctl ps --changed | awk -v p="$pid" '$1 == p')
	kill "$pid"
	wait "$pid" 2>/dev/null
	case "$line" in
	*"UNTRUSTED PUBLIC"*sleep*) ;;
	*) fail "slimctl ps --changed for $pid: '$line'"; return 1 ;;
	esac
	slimctl status >/tmp/status.txt || { fail "slimctl status failed"; return 1; }
	grep -q '^mode enforce$' /tmp/status.txt &&
		grep -q '^default_label SYSTEM PUBLIC$' /tmp/status.txt &&
		grep -q '^watched tmpfs ' /tmp/status.txt &&
		grep -q '^task_states [0-9]' /tmp/status.txt ||
		{ fail "slimctl status: $(tr '\n' '|' </tmp/status.txt)"; return 1; }
}

# "measure what SYSTEM-integrity tasks read": the read that demotes is
# measured (the task was SYSTEM then), what the demoted task reads is not
scn_lattice_measure_system() {
	printf '%s\n' "dont_measure fsmagic=0x73636673" "dont_measure fsmagic=0x9fa0" \
		"dont_measure fsmagic=0x62656572" \
		"measure func=FILE_CHECK mask=^MAY_READ slim_integrity=SYSTEM" >$K/policy ||
		{ fail "policy with slim_integrity refused"; return 1; }
	grep -q 'slim_integrity=SYSTEM' $K/policy || { fail "policy: $(cat $K/policy)"; return 1; }
	echo one >/root/m1
	echo two >/root/m2
	c0=$(mcount)
	run_t "read OK|" $T read /root/m1 || return 1
	expect_new_entry "$c0" /root/m1 || return 1
	c0=$(mcount)
	run_t "read OK|read OK|" $T read $L/untrusted read /root/m2 || return 1
	expect_new_entry "$c0" $L/untrusted || return 1
	if grep -q ' /root/m2$' $K/ascii_runtime_measurements; then
		fail "a file read by an UNTRUSTED task was measured"
		return 1
	fi
}

# many short-lived demoted tasks and files leave no state behind
scn_lattice_no_leaks() {
	# the baseline once the tasks of earlier scenarios are gone (a task's
	# state is freed with its task_struct, after an RCU grace period)
	n=0
	t0=$(counter task_states)
	while [ $n -lt 10 ]; do
		sleep 0.5
		t=$(counter task_states)
		[ "$t" = "$t0" ] && break
		t0=$t
		n=$((n + 1))
	done
	i0=$(counter inode_states)
	i=0
	while [ $i -lt 100 ]; do
		$T read $L/untrusted fork-level >/dev/null
		echo $i >$L/tmp$i
		$T read $L/tmp$i >/dev/null
		rm $L/tmp$i
		i=$((i + 1))
	done
	sleep 1
	t1=$(counter task_states)
	i1=$(counter inode_states)
	[ "$t1" = "$t0" ] || { fail "task states $t0 -> $t1 after 200 tasks"; return 1; }
	[ "$i1" = "$i0" ] || { fail "inode states $i0 -> $i1 after 100 files"; return 1; }
}

# The lattice's event records (docs/lattice-events.md): one of each kind,
# dumped for the host, which decodes them with tests/vm/imalist.py and
# checks them against the @@VAL lines printed here (tests/vm/run.sh).
scn_lattice_events() {
	w0=$(counter events_written)
	pd=$(sed -n 's/^policy_digest //p' $K/status)
	echo "$pd" | grep -q '^[0-9a-f]\{64\}$' || { fail "status: policy_digest '$pd'"; return 1; }
	# the policy in force now (lattice_measure_system replaced the default)
	cp $K/policy /tmp/before.policy
	echo "@@VAL policy_before $(sha256sum </tmp/before.policy | cut -d' ' -f1)"
	[ "$(sha256sum </tmp/before.policy | cut -d' ' -f1)" = "$pd" ] ||
		{ fail "status: policy_digest is not the sha256 of the policy read back"; return 1; }
	slimctl mode permissive && slimctl mode enforce ||
		{ fail "slimctl mode failed"; return 1; }
	{
		echo "# events scenario"
		cat /tmp/before.policy
	} >/tmp/ev.policy
	cat /tmp/ev.policy >$K/policy || { fail "policy write failed"; return 1; }
	want=$(sha256sum </tmp/ev.policy | cut -d' ' -f1)
	echo "@@VAL policy_written $want"
	[ "$(sed -n 's/^policy_digest //p' $K/status)" = "$want" ] ||
		{ fail "status: policy_digest is not the written policy's sha256"; return 1; }
	echo ev >$L/evfile
	slimctl relabel "USER PUBLIC" $L/evfile || { fail "relabel failed"; return 1; }
	cp /bin/slimtest $L/evdaemon
	# a SYSTEM task demoted by a file, one by an IP socket, and one that
	# goes SYSTEM -> USER (recorded) -> UNTRUSTED (not: it was not SYSTEM)
	run_t "read OK|level UNTRUSTED PUBLIC|" $L/evdaemon read $L/untrusted level || return 1
	run_t "udp-recv OK|level UNTRUSTED PUBLIC|" $L/evdaemon udp-recv level || return 1
	run_t "read OK|read OK|level UNTRUSTED PUBLIC|" \
		$L/evdaemon read $L/user read $L/untrusted level || return 1
	run_t "read OK|level SYSTEM SYSTEM_SENSITIVE|" $L/evdaemon read $L/secret level || return 1
	sleep 1
	w1=$(counter events_written)
	[ "$w1" -ge $((w0 + 8)) ] || { fail "events_written $w0 -> $w1, want 8 more"; return 1; }
	grep -q ' ima-buf sha256:[0-9a-f]* slim_event 534c4556' $K/ascii_runtime_measurements ||
		{ fail "no slim_event line in the ascii list"; return 1; }
	# back to the policy before, for the scenarios after this one
	cat /tmp/before.policy >$K/policy || { fail "policy restore failed"; return 1; }
	dump events
}

# The limit on relabel and demotion records: reloaded with a burst of 2,
# no refill and a cap of 4; 25 SYSTEM tasks demoted in three batches,
# each followed by time for the drop report. The host checks that the
# burst passed, every other demotion is counted in events_dropped, a
# dropped record reported the first batch's drops, and the cap ended with
# one final record (tests/vm/run.sh).
scn_lattice_events_limit() {
	rmmod slim || { fail "rmmod failed"; return 1; }
	insmod /lib/slim.ko lock=0 pcr=$PCR mode=enforce events_burst=2 \
		events_rate=0 events_max=4 || { fail "insmod failed"; return 1; }
	n=0
	for batch in 10 10 5; do
		i=0
		while [ $i -lt $batch ]; do
			$T read $L/untrusted >/dev/null
			i=$((i + 1))
		done
		n=$((n + batch))
		sleep 2.5
	done
	echo "@@VAL limit_demotions $n"
	echo "@@VAL limit_counter_dropped $(counter events_dropped)"
	dump limit
}

# (the workers do not read the module's own files: an open of a securityfs
# file of a module being removed trips the kernel's WARN in do_dentry_open,
# see kernel/README.md)
scn_lattice_unload_under_load() {
	# loaded by the scenarios before, unless this one ran already
	grep -q '^slim ' /proc/modules || insmod /lib/slim.ko lock=0 pcr=$PCR mode=enforce ||
		{ fail "insmod failed"; return 1; }
	rm -f /tmp/stop
	for w in 1 2 3; do
		(
			while [ ! -e /tmp/stop ]; do
				$T read $L/untrusted udp-recv write $L/sys >/dev/null
				$T read $L/secret exec $L/slimtest udp-send write $L/pub >/dev/null
				$L/sanitizer read $L/untrusted >/dev/null
				echo $w >$L/w$w
			done
		) &
	done
	errs=""
	stale=0
	for round in 1 2 3 4 5; do
		# a task freed unseen leaves its levels to the next task_struct
		# at its address (the workers' demoted tasks, during the load)
		stale=$((stale + $(counter stale_states)))
		t0=$(uptime_cs)
		rmmod slim || errs="$errs rmmod$round"
		t1=$(uptime_cs)
		sleep 0.5
		t2=$(uptime_cs)
		insmod /lib/slim.ko lock=0 pcr=$PCR mode=enforce || errs="$errs insmod$round"
		t3=$(uptime_cs)
		echo "@@INFO unload round $round: rmmod $(cs_s $((t1 - t0))) s, insmod $(cs_s $((t3 - t2))) s"
		sleep 1
	done
	touch /tmp/stop
	wait
	stale=$((stale + $(counter stale_states)))
	[ "$stale" = 0 ] || errs="$errs stale_states=$stale"
	t0=$(uptime_cs)
	rmmod slim || errs="$errs rmmod-final"
	echo "@@INFO unload idle: rmmod $(cs_s $(($(uptime_cs) - t0))) s"
	[ -z "$errs" ] || { fail "failed:$errs"; return 1; }
	unloaded_quietly
}
