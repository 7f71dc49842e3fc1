# common.sh - helpers for guest scripts (busybox ash).
K=/sys/kernel/security/slim
PCR=11
why=""

# run_scn NAME: runs scn_NAME, prints "@@SCEN NAME PASS|FAIL: why"
run_scn() {
	why=""
	echo "@@SCEN-BEGIN $1"
	if "scn_$1"; then
		echo "@@SCEN $1 PASS"
	else
		echo "@@SCEN $1 FAIL: ${why:-failed}"
	fi
}

fail() {
	why="$*"
	return 1
}

count() { cat $K/runtime_measurements_count; }
violations() { cat $K/violations; }
pcr() { tr 'A-F' 'a-f' <"/sys/class/tpm/tpm0/pcr-$1/${2:-$PCR}"; }
last_entry() { tail -n 1 $K/ascii_runtime_measurements; }

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
