#!/bin/sh
# run.sh O - the VM tests of `make check`.
#
# For each kernel in VM_KERNELS (Debian 12's 6.1 and 6.12): builds slim.ko
# into O/vm/<kernel>/module, builds an initramfs, boots the stock kernel
# under qemu TCG with a fresh swtpm (both kernels in parallel), runs the
# scenarios of tests/vm/guest/scenarios.sh in one boot, and judges them
# here from the serial console and the data channel. Prints
# "PASS vm/<kernel>/<scenario>" or "FAIL ..." with the log tail, then
# "vm: N passed, N failed"; exits 1 if anything failed.
set -u
O=$(cd "${1:?usage: run.sh O}" && pwd)
. "$(dirname "$0")/lib.sh"
# the host's limit per boot: a backstop only, each scenario has its own
# limit inside the guest (VM_SCN_LIMIT, guest/common.sh) and a soft lockup
# panics the guest; a whole run takes 140-190 s here
VM_TIMEOUT=${VM_TIMEOUT:-720}
WL=$O/rel/bin/attest-whitelist
OUT=$O/vm
pass=0
failn=0

SCENARIOS="load exec_once exec_again exec_modified file_read_root mmap_exec denied_open file_write_only file_read_nonroot dump_clean
policy_malformed policy_replace violation_open_writers violation_tomtou
dump_violations unload reload_gap unload_under_load
lattice_load lattice_read_down lattice_user_level lattice_write_revoked
lattice_secrecy lattice_ip_send lattice_ip_receive lattice_sanitizer
lattice_declassifier lattice_fork_exec lattice_new_file lattice_dirs lattice_label_protected
lattice_bad_input lattice_mmap_write lattice_permissive lattice_off lattice_log_lines
lattice_ps_status lattice_measure_system lattice_no_leaks lattice_events
lattice_events_limit lattice_ipc_reload lattice_ipc_pipe lattice_ipc_fifo
lattice_ipc_unix lattice_ipc_scm_rights lattice_ipc_sysv_msg lattice_ipc_sysv_shm
lattice_ipc_posix_shm lattice_ipc_mqueue lattice_ipc_splice lattice_ipc_ptrace lattice_ipc_signal lattice_ipc_metadata
lattice_ipc_mappings lattice_ipc_io_uring lattice_ipc_permissive lattice_ipc_off
lattice_ipc_log_lines lattice_ipc_no_leaks lattice_data_net lattice_data_objects
lattice_data_memory lattice_data_modes evm_disk_mount evm_no_key_unverified evm_wrong_pcrs_no_key evm_load_once
evm_host_labels_verify evm_offline_edit_refused evm_unknown_type evm_hmac_equals_module
evm_relabel_rehmac evm_label_xattr_protected evm_metadata_change evm_remount
lattice_unload_under_load lock_refuses_removal root_setup root_kernel_code
root_hardware root_mounts root_block root_ioctl root_settings root_switch_off"
# VM_SCENARIOS: only these (the guest runs them in this order; the host
# checks of the dumped lists need dump_clean, dump_violations, reload_gap)
SCENARIOS=${VM_SCENARIOS:-$SCENARIOS}

# has NAME: NAME is one of the scenarios run
has() {
	# shellcheck disable=SC2086,SC2116 # the list, flattened to one line
	case " $(echo $SCENARIOS) " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# pcrfile BLOCK BANK HEX: evmctl's PCR file (line i is PCR i) with PCRs
# 0-10 as the guest read them and PCR 11 = HEX
pcrfile() {
	i=0
	while [ $i -lt 11 ]; do
		printf 'PCR-%02d: %s\n' $i "$(sed -n "s/^pcr$i-$2 //p" "$1")"
		i=$((i + 1))
	done
	printf 'PCR-11: %s\n' "$3"
}

# extract DIR NAME -> DIR/NAME.bin, DIR/NAME.sha1, DIR/NAME.sha256 (evmctl
# PCR files); returns 1 if the block is missing
extract() {
	blk=$1/$2.blk
	vm_block "$1/data.log" "$2" >"$blk"
	[ -s "$blk" ] || return 1
	grep -v '^count \|^pcr' "$blk" | base64 -d >"$1/$2.bin" 2>/dev/null || return 1
	for b in sha1 sha256; do
		v=$(sed -n "s/^pcr-$b //p" "$blk")
		[ -n "$v" ] || return 1
		bad=$(echo "$v" | sed 's/^0/1/; t; s/^./0/')
		# evmctl reads line i as PCR i: PCRs 0-10 are listed as zero
		pcrfile "$blk" $b "$v" >"$1/$2.$b"
		# the same file with one hex digit changed: a negative control
		pcrfile "$blk" $b "$bad" >"$1/$2.$b.bad"
	done
}

# evmctl_check DIR NAME [--ignore-violations]: the list replays to the
# guest's PCR values in both banks, and not to a changed value
evmctl_check() {
	d=$1
	n=$2
	shift 2
	log=$d/evmctl-$n.log
	evmctl -v ima_measurement "$@" --pcrs sha256,"$d/$n.sha256" \
		--pcrs sha1,"$d/$n.sha1" "$d/$n.bin" >"$log" 2>&1 || {
		echo "evmctl rejected the list"
		return 1
	}
	# evmctl exits 0 without checking anything when it has no PCRs
	grep -q "PCR-11: succeed" "$log" || { echo "evmctl did not compare PCR 11"; return 1; }
	if evmctl ima_measurement "$@" --pcrs sha256,"$d/$n.sha256.bad" \
		"$d/$n.bin" >"$log.bad" 2>&1; then
		echo "evmctl accepted a wrong PCR value (check is vacuous)"
		return 1
	fi
	return 0
}

attest_check() {
	d=$1
	n=$2
	[ -x "$WL" ] || { echo "$WL not built"; return 1; }
	echo '{"digests":{}}' >"$d/empty-wl.json"
	"$WL" check "$d/empty-wl.json" "$d/$n.bin" --pcrs sha256,"$d/$n.sha256" \
		--pcr 11 --replay-only >"$d/attest-$n.log" 2>&1
	rc=$?
	[ $rc = 0 ] || { echo "attest-whitelist exit $rc"; return 1; }
	"$WL" check "$d/empty-wl.json" "$d/$n.bin" --pcrs sha256,"$d/$n.sha256.bad" \
		--pcr 11 --replay-only >"$d/attest-$n.bad.log" 2>&1
	rc=$?
	[ $rc = 1 ] || { echo "attest-whitelist exit $rc for a wrong PCR (want 1)"; return 1; }
	return 0
}

judge() {
	tag=$1
	d=$OUT/$tag
	con=$d/console.log
	tr -d '\r' <"$con" >"$d/console.txt" 2>/dev/null || : >"$d/console.txt"
	con=$d/console.txt
	if grep -q '^@@VM-END' "$con"; then
		ok "$tag/boot"
	else
		last=$(sed -n 's/^@@SCEN-BEGIN //p' "$con" | tail -n 1)
		rc=$(cat "$d/boot.rc" 2>/dev/null)
		if [ "$rc" = 124 ]; then
			why="the host's limit (VM_TIMEOUT=${VM_TIMEOUT}s) ended the guest while ${last:-the boot} ran"
		else
			why="the guest stopped (qemu status ${rc:-?}) while ${last:-the boot} ran"
		fi
		ko "$tag/boot" "the guest never printed its end marker: $why" "$con" "$d/qemu.log"
	fi
	for s in $SCENARIOS; do
		line=$(grep "^@@SCEN $s " "$con" | head -n 1)
		case "$line" in
		"@@SCEN $s PASS") ok "$tag/$s" ;;
		"") ko "$tag/$s" "no result (guest died or hung before it)" ;;
		*)
			sed -n "/^@@SCEN-BEGIN $s\$/,/^@@SCEN $s /p" "$con" >"$d/$s.log"
			ko "$tag/$s" "${line#@@SCEN "$s" }" "$d/$s.log"
			;;
		esac
	done
	# host-side judgements of the dumped lists
	if ! has dump_clean; then
		:
	elif extract "$d" clean; then
		if r=$(evmctl_check "$d" clean); then
			ok "$tag/replay_clean_evmctl"
		else
			ko "$tag/replay_clean_evmctl" "$r" "$d/evmctl-clean.log"
		fi
		if r=$(attest_check "$d" clean); then
			ok "$tag/replay_clean_attest"
		else
			ko "$tag/replay_clean_attest" "$r" "$d/attest-clean.log"
		fi
	else
		ko "$tag/replay_clean_evmctl" "no list dumped" "$d/data.log"
		ko "$tag/replay_clean_attest" "no list dumped"
	fi
	if ! has dump_violations; then
		:
	elif extract "$d" violations; then
		if r=$(evmctl_check "$d" violations --ignore-violations); then
			ok "$tag/replay_violations_evmctl"
		else
			ko "$tag/replay_violations_evmctl" "$r" "$d/evmctl-violations.log"
		fi
	else
		ko "$tag/replay_violations_evmctl" "no list dumped" "$d/data.log"
	fi
	# the lattice's event records, decoded by imalist.py (events-check.py)
	for ev in events limit; do
		sc=lattice_events
		[ $ev = limit ] && sc=lattice_events_limit
		has $sc || continue
		if ! extract "$d" $ev; then
			ko "$tag/${sc}_records" "no list dumped" "$d/data.log"
			continue
		fi
		if python3 "$VM_DIR/events-check.py" $ev "$d/$ev.bin" "$con" \
			>"$d/$ev-check.log" 2>&1; then
			ok "$tag/${sc}_records"
		else
			ko "$tag/${sc}_records" "$(head -n 1 "$d/$ev-check.log")" "$d/$ev-check.log"
		fi
		if python3 "$VM_DIR/imalist.py" "$d/$ev.bin" --pcr 11 --gap-optional \
			--expect "sha1=$(sed -n 's/^PCR-11: //p' "$d/$ev.sha1")" \
			--expect "sha256=$(sed -n 's/^PCR-11: //p' "$d/$ev.sha256")" \
			>"$d/$ev-replay.log" 2>&1; then
			ok "$tag/replay_${ev}_records"
		else
			ko "$tag/replay_${ev}_records" "the list with event records does not replay" "$d/$ev-replay.log"
		fi
	done
	if ! has reload_gap; then
		:
	elif extract "$d" gap; then
		if python3 "$VM_DIR/imalist.py" "$d/gap.bin" --pcr 11 \
			--expect "sha1=$(sed -n 's/^PCR-11: //p' "$d/gap.sha1")" \
			--expect "sha256=$(sed -n 's/^PCR-11: //p' "$d/gap.sha256")" \
			>"$d/gap-replay.log" 2>&1; then
			ok "$tag/replay_from_gap"
		else
			ko "$tag/replay_from_gap" "replay from the gap record failed" "$d/gap-replay.log"
		fi
		# replayed from zero, as a verifier unaware of the gap would, the
		# reloaded list must not match the PCR
		if evmctl ima_measurement --pcrs sha256,"$d/gap.sha256" \
			"$d/gap.bin" >"$d/evmctl-gap.log" 2>&1; then
			ko "$tag/gap_not_replayable_from_zero" "evmctl accepted a list with a gap" "$d/evmctl-gap.log"
		else
			ok "$tag/gap_not_replayable_from_zero"
		fi
	else
		ko "$tag/replay_from_gap" "no list dumped" "$d/data.log"
		ko "$tag/gap_not_replayable_from_zero" "no list dumped"
	fi
	if grep -E -q "BUG:|Oops|WARNING:|general protection|Call Trace|blocked for more than|soft lockup|rcu_(sched|preempt) detected stalls" "$con"; then
		ko "$tag/kernel_log_clean" "the kernel complained" "$con"
	else
		ok "$tag/kernel_log_clean"
	fi
}

mkdir -p "$OUT"
# the guest's scenario runner itself (time limit, kill, next scenario)
"$VM_DIR/harness-test.sh" >"$OUT/harness.log" 2>&1
grep '^PASS\|^FAIL' "$OUT/harness.log"
pass=$((pass + $(grep -c '^PASS' "$OUT/harness.log")))
failn=$((failn + $(grep -c '^FAIL' "$OUT/harness.log")))
grep -q '^harness: [0-9]* passed, 0 failed$' "$OUT/harness.log" ||
	ko harness/ran "harness-test.sh did not finish cleanly" "$OUT/harness.log"
# the EVM key and the host-built, host-HMACed ext4 image (copied per guest)
EVM_UUID=5a1e0e7a-0000-4000-8000-00000000e7a1
head -c 32 /dev/urandom >"$OUT/evm.key"
if vm_build_evm_disk "$OUT/evm.img" "$OUT/evm.key" "$EVM_UUID" "$O/rel/bin/slimctl" 2>"$OUT/evm.err"; then
	ok "evm_image_built_on_host"
else
	ko "evm_image_built_on_host" "slimctl label/evm-hmac, mke2fs or debugfs failed" "$OUT/evm.err"
fi
VM_EVM_KEY=$OUT/evm.key
tags=""
for kv in $VM_KERNELS; do
	tag=${kv%%:*}
	krel=${kv#*:}
	d=$OUT/$tag
	rm -rf "$d"
	mkdir -p "$d"
	if [ ! -f "/boot/vmlinuz-$krel" ] || [ ! -d "/usr/src/linux-headers-$krel" ]; then
		ko "$tag/build" "kernel $krel: image or headers not installed"
		continue
	fi
	if ! vm_build_module "$krel" "$d/module" 2>"$d/module.err"; then
		ko "$tag/build" "slim.ko does not build against $krel" "$d/module/build.log"
		continue
	fi
	ok "$tag/build"
	VM_KREL=$krel
	[ -f "$OUT/evm.img" ] && cp "$OUT/evm.img" "$d/disk.img"
	if ! vm_build_initramfs "$d/initramfs.cpio.gz" "$d/module/slim.ko" tests "$O/rel/bin"; then
		ko "$tag/initramfs" "cannot build the initramfs"
		continue
	fi
	tags="$tags $tag"
done

pids=""
for tag in $tags; do
	(
		vm_boot "$(vm_kernel_release "$tag")" "$OUT/$tag/initramfs.cpio.gz" \
			"$OUT/$tag" "$VM_TIMEOUT"
		echo $? >"$OUT/$tag/boot.rc"
	) &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p"
done
for tag in $tags; do
	judge "$tag"
done

echo "vm: $pass passed, $failn failed"
[ "$failn" = 0 ]
