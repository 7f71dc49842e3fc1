# common.sh - helpers for guest scripts (busybox ash).
K=/sys/kernel/security/slim
PCR=11
why=""

# SCN_LIMIT: seconds one scenario may take (/vm/limit, default 240)
SCN_LIMIT=${SCN_LIMIT:-$(cat /vm/limit 2>/dev/null || echo 240)}

# kmsg_tail N: the last N kernel messages, prefixed, for a failure's log
kmsg_tail() {
	dmesg | tail -n "$1" | sed 's/^/kmsg: /'
}

# kill_tree PID: PID and all its descendants (SIGKILL, the parent before
# its children: a watchdog's sleep must not end before the watchdog); a
# task blocked uninterruptibly in the kernel stays, the suite goes on
kill_tree() {
	kids=$(for s in /proc/[0-9]*/stat; do
		read -r pid _ _ ppid _ <"$s" 2>/dev/null && [ "$ppid" = "$1" ] && echo "$pid"
	done)
	kill -9 "$1" 2>/dev/null
	for c in $kids; do
		kill_tree "$c"
	done
}

scn_timed_out=""
trap 'scn_timed_out=1' USR1

# run_scn NAME: runs scn_NAME in a subshell with a time limit of SCN_LIMIT
# seconds; prints "@@SCEN-BEGIN NAME", then "@@SCEN NAME PASS" or, after
# the last kernel messages, "@@SCEN NAME FAIL: why". A scenario that does
# not finish in time is reported with the blocked tasks' stacks (sysrq w)
# and killed, and the next scenario runs.
run_scn() {
	echo "@@SCEN-BEGIN $1"
	read -r scn_t0 _ </proc/uptime
	rm -f /tmp/scn.why
	(
		why=""
		if "scn_$1"; then
			exit 0
		fi
		echo "${why:-failed}" >/tmp/scn.why
		exit 1
	) &
	scn_pid=$!
	scn_timed_out=""
	(
		sleep "$SCN_LIMIT" && kill -USR1 $$
	) &
	dog=$!
	# a trapped signal ends the wait early: the scenario ran out of time
	wait $scn_pid
	rc=$?
	kill_tree $dog
	wait $dog 2>/dev/null
	read -r scn_t1 _ </proc/uptime
	echo "@@SCEN-TIME $1 ${scn_t0%.*} ${scn_t1%.*}"
	if [ -n "$scn_timed_out" ]; then
		echo w >/proc/sysrq-trigger 2>/dev/null
		sleep 1
		kmsg_tail 120
		kill_tree $scn_pid
		echo "@@SCEN $1 FAIL: timed out after ${SCN_LIMIT}s (blocked tasks and the last kernel messages above)"
	elif [ $rc = 0 ]; then
		echo "@@SCEN $1 PASS"
	else
		kmsg_tail 30
		echo "@@SCEN $1 FAIL: $(cat /tmp/scn.why 2>/dev/null || echo "exit status $rc")"
	fi
}

fail() {
	why="$*"
	return 1
}

# uptime_cs: seconds since boot in hundredths; cs_s N: N hundredths as s.cc
uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*\([0-9]\)/\1/'
}
cs_s() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

count() { cat $K/runtime_measurements_count; }
# measurements only: the lattice's event records (ima-buf) are left out
mcount() { grep -c ' ima-ng ' $K/ascii_runtime_measurements; }
violations() { cat $K/violations; }
pcr() { tr 'A-F' 'a-f' <"/sys/class/tpm/tpm0/pcr-$1/${2:-$PCR}"; }
last_entry() { grep ' ima-ng ' $K/ascii_runtime_measurements | tail -n 1; }

# dump NAME: the binary list and the PCR values, consistent with each
# other, as a block on the data channel (/dev/ttyS1)
dump() {
	n=0
	while [ $n -lt 5 ]; do
		c1=$(count)
		cat $K/binary_runtime_measurements >/tmp/dump.bin
		p1=$(pcr sha1)
		p256=$(pcr sha256)
		c2=$(count)
		[ "$c1" = "$c2" ] && break
		n=$((n + 1))
	done
	[ "$c1" = "$c2" ] || { fail "list kept changing while dumped"; return 1; }
	{
		echo "@@BEGIN $1"
		echo "count $c1"
		echo "pcr-sha1 $p1"
		echo "pcr-sha256 $p256"
		# PCRs 0-9 for the boot_aggregate check
		for i in 0 1 2 3 4 5 6 7 8 9 10; do
			echo "pcr$i-sha1 $(pcr sha1 $i)"
			echo "pcr$i-sha256 $(pcr sha256 $i)"
		done
		base64 /tmp/dump.bin
		echo "@@END $1"
	} >/dev/ttyS1
}

# unloaded_quietly: after the unload/reload scenarios, the module is gone
# and the kernel logged no complaint
unloaded_quietly() {
	if dmesg | grep -E -q "BUG:|Oops|WARNING:|general protection"; then
		fail "kernel complained: $(dmesg | grep -E 'BUG:|Oops|WARNING:' | head -n 3)"
		return 1
	fi
	if grep -q '^slim ' /proc/modules; then
		fail "module still loaded"
		return 1
	fi
	return 0
}
