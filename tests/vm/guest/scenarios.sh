# scenarios.sh - the VM test scenarios, run by /init in one boot.
# Each prints "@@SCEN <name> PASS" or "@@SCEN <name> FAIL: <why>"; the host
# (tests/vm/run.sh) also judges the lists dumped on the data channel.
. /vm/common.sh
. /vm/lattice.sh
. /vm/lattice_ipc.sh
. /vm/lattice_data.sh
. /vm/evm.sh
. /vm/root.sh

# insmod the module with lock=0 and check the securityfs files
scn_load() {
	insmod /lib/slim.ko lock=0 pcr=$PCR || { fail "insmod lock=0 failed"; return 1; }
	for f in binary_runtime_measurements ascii_runtime_measurements \
		runtime_measurements_count violations policy; do
		[ -e $K/$f ] || { fail "$K/$f missing"; return 1; }
	done
	first=$(head -n 1 $K/ascii_runtime_measurements)
	set -- $first
	[ "$1" = "$PCR" ] && [ "$3" = ima-ng ] && [ "$5" = boot_aggregate ] ||
		{ fail "first entry is not boot_aggregate: $first"; return 1; }
	case "$4" in
	sha256:????????????????????????????????????????????????????????????????) ;;
	*) fail "boot_aggregate digest: $4"; return 1 ;;
	esac
	[ "$(mcount)" -ge 1 ] || { fail "count $(mcount)"; return 1; }
	[ "$(violations)" = 0 ] || { fail "violations $(violations)"; return 1; }
}

# expect_new_entry BEFORE PATH: exactly one entry more, for PATH, with
# PATH's sha256
expect_new_entry() {
	now=$(mcount)
	[ "$now" = $(($1 + 1)) ] ||
		{ fail "count $1 -> $now, expected +1"; return 1; }
	# shellcheck disable=SC2046 # split the entry into fields
	set -- $(last_entry) "$2"
	want=$(sha256sum "$6" | cut -d' ' -f1)
	[ "$5" = "$6" ] && [ "$4" = "sha256:$want" ] ||
		{ fail "last entry '$*' is not $6 sha256:$want"; return 1; }
}

# mkprog DIR TAG: DIR/true, a copy of busybox (so that argv[0] names an
# applet), made distinct from the others by TAG appended
mkprog() {
	mkdir -p "$1"
	cp /bin/busybox "$1/true"
	[ -z "$2" ] || echo "$2" >>"$1/true"
}

scn_exec_once() {
	mkprog /root/p1 ""
	c0=$(mcount)
	/root/p1/true true || { fail "cannot run /root/p1/true"; return 1; }
	expect_new_entry "$c0" /root/p1/true
}

scn_exec_again() {
	c0=$(mcount)
	/root/p1/true true
	/root/p1/true true
	[ "$(mcount)" = "$c0" ] || { fail "count $c0 -> $(mcount)"; return 1; }
}

scn_exec_modified() {
	echo "changed" >>/root/p1/true
	c0=$(mcount)
	/root/p1/true true || { fail "cannot run modified /root/p1/true"; return 1; }
	expect_new_entry "$c0" /root/p1/true || return 1
	c0=$(mcount)
	/root/p1/true true
	[ "$(mcount)" = "$c0" ] || { fail "re-run of the modified program added entries"; return 1; }
}

scn_file_read_root() {
	echo "config $$" >/root/conf
	c0=$(mcount)
	cat /root/conf >/dev/null
	expect_new_entry "$c0" /root/conf
}

# a dynamically linked program: the program, its interpreter and libc are
# mapped executable (by the kernel and by ld.so); with only an MMAP_CHECK
# rule exactly those three are measured
scn_mmap_exec() {
	cat $K/policy >/tmp/policy.keep
	echo "measure func=MMAP_CHECK mask=MAY_EXEC" >$K/policy ||
		{ fail "cannot set an MMAP_CHECK-only policy"; return 1; }
	c0=$(mcount)
	[ "$(/usr/bin/basename /a/b)" = b ] || { fail "/usr/bin/basename does not run"; return 1; }
	c1=$(mcount)
	cat /tmp/policy.keep >$K/policy || { fail "cannot restore the policy"; return 1; }
	[ "$c1" = $((c0 + 3)) ] || { fail "count $c0 -> $c1, expected +3"; return 1; }
	for f in /usr/bin/basename /lib64/ld-linux-x86-64.so.2 \
		/lib/x86_64-linux-gnu/libc.so.6; do
		want=$(sha256sum $f | cut -d' ' -f1)
		grep -q " sha256:$want $f\$" $K/ascii_runtime_measurements ||
			{ fail "$f not measured by MMAP_CHECK"; return 1; }
	done
}

# an open that another LSM denies after our hook queued its work: the
# half-opened file must be skipped (no entry, no crash)
scn_denied_open() {
	echo "secret $$" >/root/denied
	/bin/denied-open >/dev/null 2>&1	# its own exec is measured now
	c0=$(mcount)
	out=$(/bin/denied-open /root/denied)
	rc=$?
	[ $rc = 0 ] || { fail "denied-open exit $rc: $out"; return 1; }
	[ "$(mcount)" = "$c0" ] || { fail "a denied open was measured: $(last_entry)"; return 1; }
	cat /root/denied >/dev/null
	expect_new_entry "$c0" /root/denied
}

# a FILE_CHECK rule on write-only opens: the module cannot read through
# the task's file and opens it again for reading (its own open must not be
# measured again); the file is measured as it is when open() returns:
# truncated, empty
scn_file_write_only() {
	cat $K/policy >/tmp/policy.keep
	printf 'dont_measure fsmagic=0x73636673\nmeasure func=FILE_CHECK mask=MAY_WRITE uid=0\n' >$K/policy ||
		{ fail "cannot set a write-only FILE_CHECK policy"; return 1; }
	echo "old content" >/tmp/wo.txt && mv /tmp/wo.txt /root/wo
	c0=$(mcount)
	printf 'new' >/root/wo
	c1=$(mcount)
	last=$(last_entry)
	cat /tmp/policy.keep >$K/policy || { fail "cannot restore the policy"; return 1; }
	[ "$c1" = $((c0 + 1)) ] || { fail "count $c0 -> $c1, expected +1"; return 1; }
	empty=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
	case "$last" in
	*" sha256:$empty /root/wo") ;;
	*) fail "last entry: $last"; return 1 ;;
	esac
}

# the default FILE_CHECK rule has uid=0: a file read by another user is
# not measured, the same file read by root is
scn_file_read_nonroot() {
	grep -q '^nobody:' /etc/passwd 2>/dev/null ||
		echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
	mkdir -p /pub && chmod 755 /pub
	echo "public $$" >/pub/data && chmod 644 /pub/data
	su -s /bin/sh nobody -c true || { fail "su nobody does not work"; return 1; }
	c0=$(mcount)
	out=$(su -s /bin/sh nobody -c "id -u; cat /pub/data")
	[ "$out" = "$(printf '65534\npublic %s' $$)" ] || { fail "su output: $out"; return 1; }
	[ "$(mcount)" = "$c0" ] || { fail "uid 65534's read measured: $(last_entry)"; return 1; }
	cat /pub/data >/dev/null
	expect_new_entry "$c0" /pub/data
}

scn_dump_clean() {
	dump clean
}

scn_policy_malformed() {
	cat $K/policy >/tmp/policy.old
	for bad in "measure func=BOGUS_CHECK" "frobnicate func=BPRM_CHECK" \
		"measure uid=root" "measure mask=MAY_FLY" "measure func=" \
		"measure func=BPRM_CHECK func=FILE_CHECK"; do
		if echo "$bad" >$K/policy 2>/dev/null; then
			fail "malformed rule accepted: $bad"
			return 1
		fi
	done
	# a good rule before a bad one in the same write: all refused
	if printf 'measure func=BPRM_CHECK\nmeasure bogus\n' >$K/policy 2>/dev/null; then
		fail "policy with one bad rule accepted"
		return 1
	fi
	cat $K/policy | cmp -s - /tmp/policy.old ||
		{ fail "policy changed after rejected writes"; return 1; }
	dmesg | grep -q "slim: policy: unknown or repeated condition 'func'" ||
		{ fail "no clear error in the kernel log"; return 1; }
	# the old policy still measures
	mkprog /root/p2 2
	c0=$(mcount)
	/root/p2/true true
	expect_new_entry "$c0" /root/p2/true
}

scn_policy_replace() {
	printf '# exec only\ndont_measure fsmagic=0x9fa0\nmeasure func=BPRM_CHECK mask=MAY_EXEC\n' >$K/policy ||
		{ fail "valid policy refused"; return 1; }
	want=$(printf 'dont_measure fsmagic=0x9fa0\nmeasure func=BPRM_CHECK mask=MAY_EXEC\n')
	[ "$(cat $K/policy)" = "$want" ] || { fail "policy reads back as: $(cat $K/policy)"; return 1; }
	echo "not measured" >/root/conf2
	c0=$(mcount)
	cat /root/conf2 >/dev/null
	[ "$(mcount)" = "$c0" ] || { fail "FILE_CHECK still measured under exec-only policy"; return 1; }
	mkprog /root/p3 3
	/root/p3/true true
	expect_new_entry "$c0" /root/p3/true || return 1
	cat /tmp/policy.old >$K/policy || { fail "cannot restore the old policy"; return 1; }
	cmp -s $K/policy /tmp/policy.old || { fail "restored policy differs"; return 1; }
}

scn_violation_open_writers() {
	echo "data" >/root/vw
	v0=$(violations)
	exec 7>>/root/vw
	cat /root/vw >/dev/null
	exec 7>&-
	[ "$(violations)" = $((v0 + 1)) ] || { fail "violations $v0 -> $(violations)"; return 1; }
	grep -q " sha256:0000000000000000000000000000000000000000000000000000000000000000 /root/vw\$" \
		$K/ascii_runtime_measurements || { fail "no zero-digest entry for /root/vw"; return 1; }
}

scn_violation_tomtou() {
	echo "data" >/root/vt
	v0=$(violations)
	exec 8</root/vt
	echo "more" >>/root/vt
	exec 8<&-
	[ "$(violations)" = $((v0 + 1)) ] || { fail "violations $v0 -> $(violations)"; return 1; }
	tail -n 1 $K/ascii_runtime_measurements | grep -q " sha256:0\{64\} /root/vt\$" ||
		{ fail "last entry is not a ToMToU record: $(last_entry)"; return 1; }
}

scn_dump_violations() {
	dump violations
}

scn_unload() {
	rmmod slim || { fail "rmmod failed with lock=0"; return 1; }
	[ ! -e $K ] || { fail "$K still there"; return 1; }
	grep -q '^slim ' /proc/modules && { fail "still in /proc/modules"; return 1; }
	return 0
}

scn_reload_gap() {
	p1=$(pcr sha1)
	p256=$(pcr sha256)
	insmod /lib/slim.ko lock=0 pcr=$PCR || { fail "insmod failed"; return 1; }
	# shellcheck disable=SC2046 # split the entry into fields
	set -- $(head -n 1 $K/ascii_runtime_measurements)
	[ "$5" = slim_gap ] || { fail "first entry: $*"; return 1; }
	[ "$4" = "sha256:$p256" ] || { fail "gap digest $4, PCR was $p256"; return 1; }
	[ "$6" = "sha1:$p1" ] && [ "$7" = "sha256:$p256" ] ||
		{ fail "gap banks '$6 $7', PCRs were sha1:$p1 sha256:$p256"; return 1; }
	# shellcheck disable=SC2046 # split the entry into fields
	set -- $(sed -n 2p $K/ascii_runtime_measurements)
	[ "$5" = boot_aggregate ] || { fail "second entry: $*"; return 1; }
	mkprog /root/p4 4
	/root/p4/true true
	dump gap
}

# unload and load again and again while other tasks exec, open, write
# and read (each iteration writes new content, so it is hashed)
scn_unload_under_load() {
	rmmod slim || { fail "rmmod failed"; return 1; }
	rm -f /tmp/stop
	for w in 1 2 3; do
		(
			i=0
			while [ ! -e /tmp/stop ]; do
				echo "$w $i" >/root/load$w
				cat /root/load$w >/dev/null
				/root/p1/true true
				i=$((i + 1))
			done
		) &
	done
	errs=""
	for round in 1 2 3 4 5 6; do
		insmod /lib/slim.ko lock=0 pcr=$PCR || errs="$errs insmod$round"
		sleep 1
		rmmod slim || errs="$errs rmmod$round"
	done
	touch /tmp/stop
	wait
	[ -z "$errs" ] || { fail "failed:$errs"; return 1; }
	unloaded_quietly
}

scn_lock_refuses_removal() {
	insmod /lib/slim.ko pcr=$PCR || { fail "insmod (default lock) failed"; return 1; }
	[ "$(cat /sys/module/slim/parameters/lock)" = Y ] || { fail "lock is not the default"; return 1; }
	if rmmod slim 2>/tmp/rmmod.err; then
		fail "rmmod of a locked module succeeded"
		return 1
	fi
	grep -q '^slim ' /proc/modules || { fail "module gone"; return 1; }
	[ -e $K/runtime_measurements_count ] || { fail "$K gone"; return 1; }
	mkprog /root/p5 5
	c0=$(mcount)
	/root/p5/true true
	expect_new_entry "$c0" /root/p5/true
}

ALL_SCENARIOS="load exec_once exec_again exec_modified file_read_root mmap_exec denied_open
file_write_only file_read_nonroot dump_clean policy_malformed policy_replace
violation_open_writers violation_tomtou dump_violations unload reload_gap
unload_under_load $LATTICE_SCENARIOS $LATTICE_IPC_SCENARIOS $LATTICE_DATA_SCENARIOS $EVM_SCENARIOS
lattice_unload_under_load lock_refuses_removal $ROOT_SCENARIOS"

# /vm/only (VM_SCENARIOS on the host, e.g. tests/vm/loop.sh): run just
# these, in this order (a name may repeat)
plan_list=$ALL_SCENARIOS
[ -s /vm/only ] && plan_list=$(cat /vm/only)
echo "@@VM-PLAN $(echo $plan_list)"
for s in $plan_list; do
	run_scn $s
done
