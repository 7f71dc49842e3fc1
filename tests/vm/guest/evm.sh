# evm.sh - the EVM scenarios (sourced by scenarios.sh, after the lattice
# scenarios: the module is loaded, mode=enforce, no EVM key yet). /dev/vda
# is an ext4 image labeled and HMACed on the host (tests/vm/lib.sh,
# vm_build_evm_disk) with the key /vm/evm.key.
D=/disk
EVM_SCENARIOS="evm_disk_mount evm_no_key_unverified evm_wrong_pcrs_no_key
evm_load_once evm_host_labels_verify evm_offline_edit_refused
evm_unknown_type
evm_hmac_equals_module evm_relabel_rehmac evm_label_xattr_protected
evm_metadata_change evm_remount"

scn_evm_disk_mount() {
	[ -e /vm/evm.key ] || { fail "no /vm/evm.key in the initramfs"; return 1; }
	while read -r m; do
		insmod "/lib/modules/evm/$m.ko" 2>/dev/null
	done </lib/modules/evm/order
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -b /dev/vda ] || { fail "no /dev/vda"; return 1; }
	mkdir -p $D
	mount -t ext4 /dev/vda $D || { fail "cannot mount the ext4 image"; return 1; }
	grep -q '^watched ext4 vda ' $K/status || { fail "ext4 not watched: $(tr '\n' '|' <$K/status)"; return 1; }
	[ "$(label_of $D/data/low)" = "UNTRUSTED PUBLIC" ] ||
		{ fail "host label not seen: $(slimctl show $D/data/low)"; return 1; }
}

scn_evm_no_key_unverified() {
	grep -q '^evm_key absent$' $K/status || { fail "status: $(tr '\n' '|' <$K/status)"; return 1; }
	u0=$(counter evm_unverified)
	# without a key labels are believed, even a tampered one
	run_t "read OK|level UNTRUSTED PUBLIC|" $T read $D/data/low level || return 1
	[ "$(counter evm_unverified)" -gt "$u0" ] || { fail "evm_unverified did not count"; return 1; }
}

# sealed to PCRs 0-7 and 23, then PCR 23 changes: no key, and it says so
scn_evm_wrong_pcrs_no_key() {
	slimctl evm-seal --key-file /vm/evm.key --out /tmp/evm.blob 2>/tmp/seal.err ||
		{ fail "evm-seal: $(cat /tmp/seal.err)"; return 1; }
	slimctl evm-seal --key-file /vm/evm.key --pcrs 0-7,23 --out /tmp/evm23.blob 2>/tmp/seal.err ||
		{ fail "evm-seal 0-7,23: $(cat /tmp/seal.err)"; return 1; }
	tpm2_pcrextend -T device:/dev/tpmrm0 \
		23:sha256=2222222222222222222222222222222222222222222222222222222222222222 >/tmp/ext.err 2>&1 ||
		{ fail "tpm2_pcrextend: $(cat /tmp/ext.err)"; return 1; }
	if slimctl evm-load --in /tmp/evm23.blob 2>/tmp/load.err; then
		fail "evm-load succeeded with a changed PCR"
		return 1
	fi
	grep -q "PCRs differ" /tmp/load.err || { fail "evm-load: $(cat /tmp/load.err)"; return 1; }
	grep -q '^evm_key absent$' $K/status || { fail "the module has a key"; return 1; }
}

scn_evm_load_once() {
	slimctl evm-load --in /tmp/evm.blob 2>/tmp/load.err ||
		{ fail "evm-load: $(cat /tmp/load.err)"; return 1; }
	grep -q '^evm_key loaded$' $K/status || { fail "status: $(tr '\n' '|' <$K/status)"; return 1; }
	if slimctl evm-load --in /tmp/evm.blob 2>/tmp/load2.err; then
		fail "a second key was accepted"
		return 1
	fi
	grep -q "already loaded" /tmp/load2.err || { fail "second load: $(cat /tmp/load2.err)"; return 1; }
	# the guard run_t reads through was labeled before there was a key:
	# set its label again through the module, which HMACs it now
	slimctl relabel "SYSTEM PUBLIC guard-read=UNTRUSTED guard-write=PUBLIC" $G ||
		{ fail "relabel of the guard failed"; return 1; }
	[ "$(echo ok | $G cat 2>&1)" = ok ] ||
		{ fail "the guard does not run after its relabel"; return 1; }
	# the key is not left in any keyring
	if grep -q 'logon.*slim:evm' /proc/keys 2>/dev/null; then
		fail "the logon key is still in a keyring"
		return 1
	fi
}

scn_evm_host_labels_verify() {
	v0=$(counter evm_verified)
	run_t "read OK|level SYSTEM PUBLIC|" $T read $D/etc/conf level || return 1
	run_t "read OK|level UNTRUSTED PUBLIC|" $T read $D/data/low level || return 1
	[ "$(counter evm_verified)" -ge $((v0 + 2)) ] ||
		{ fail "evm_verified $v0 -> $(counter evm_verified)"; return 1; }
}

scn_evm_offline_edit_refused() {
	# the denial log is rate-limited (20 lines per 5 s): start a fresh
	# window so that this scenario's line is not one of those dropped
	sleep 6
	d0=$(counter denied_evm)
	run_t "read EPERM|level SYSTEM PUBLIC|" $T read $D/data/edited level || return 1
	run_t "read EPERM|" $T read $D/data/nohmac || return 1
	[ "$(counter denied_evm)" -ge $((d0 + 2)) ] || { fail "denied_evm did not count"; return 1; }
	dmesg | grep -q 'slim: denied: .*file=/disk/data/edited .*rule="label without a valid HMAC"' ||
		{ fail "no log line for the tampered file"; return 1; }
}

# an HMAC xattr of an unknown type (0x03, not 0x02) is no valid HMAC; it
# is set while the module is off, after the file was read and verified:
# what was cached for it is not believed afterwards
scn_evm_unknown_type() {
	echo typed >$D/data/typed || { fail "cannot create $D/data/typed"; return 1; }
	run_t "put OK|read OK|" $T put $K/relabel "$(printf 'SYSTEM PUBLIC\t%s' $D/data/typed)" \
		read $D/data/typed || return 1
	slimctl mode off || { fail "slimctl mode off failed"; return 1; }
	run_t "setxattr OK|" $T setxattr $D/data/typed security.slim.evm \
		03$(head -c 32 /dev/zero | od -An -tx1 | tr -d ' \n') || return 1
	slimctl mode enforce || { fail "slimctl mode enforce failed"; return 1; }
	d0=$(counter denied_evm)
	run_t "read EPERM|" $T read $D/data/typed || return 1
	[ "$(counter denied_evm)" -gt "$d0" ] || { fail "denied_evm did not count"; return 1; }
}

scn_evm_hmac_equals_module() {
	out=$(slimctl evm-hmac --key-file /vm/evm.key $D/etc/conf $D/data/low 2>&1) ||
		{ fail "evm-hmac: $out"; return 1; }
	[ "$(printf '%s\n' "$out" | grep -c 'stored: match$')" = 2 ] ||
		{ fail "evm-hmac: $(printf '%s' "$out" | tr '\n' '|')"; return 1; }
	# the tampered file cannot be opened (for FS_IOC_GETVERSION): its
	# generation is given, 0 as mke2fs -d makes it (vm_build_evm_disk)
	out=$(slimctl evm-hmac --key-file /vm/evm.key --generation 0 $D/data/edited 2>&1)
	case "$out" in
	*"stored: differs") ;;
	*) fail "tampered file: $out"; return 1 ;;
	esac
}

# a label set through the module gets its HMAC from the module
scn_evm_relabel_rehmac() {
	slimctl relabel "USER PUBLIC" $D/etc/conf2 || { fail "relabel failed"; return 1; }
	out=$(slimctl evm-hmac --key-file /vm/evm.key $D/etc/conf2 2>&1)
	case "$out" in
	*"stored: match") ;;
	*) fail "after relabel: $out"; return 1 ;;
	esac
	run_t "read OK|level USER PUBLIC|" $T read $D/etc/conf2 level || return 1
	# a new file made by a demoted task is labeled and HMACed too
	run_t "read OK|create OK|" $T read $D/data/low create $D/data/new || return 1
	out=$(slimctl evm-hmac --key-file /vm/evm.key $D/data/new 2>&1)
	case "$out" in
	*"stored: match") ;;
	*) fail "new file: $out"; return 1 ;;
	esac
}

scn_evm_label_xattr_protected() {
	run_t "setlabel EPERM|" $T setlabel $D/etc/conf "UNTRUSTED PUBLIC" || return 1
	out=$(slimctl evm-hmac --key-file /vm/evm.key $D/etc/conf 2>&1)
	case "$out" in
	*"stored: match") ;;
	*) fail "after a refused setxattr: $out"; return 1 ;;
	esac
}

# mode is in the HMAC: a chmod outside the module breaks it until the
# label is set again through the module
scn_evm_metadata_change() {
	chmod 600 $D/etc/conf2 || { fail "chmod"; return 1; }
	run_t "read EPERM|" $T read $D/etc/conf2 || return 1
	slimctl relabel "USER PUBLIC" $D/etc/conf2 || { fail "relabel failed"; return 1; }
	run_t "read OK|" $T read $D/etc/conf2
}

# a fresh mount: nothing cached, everything verified again
scn_evm_remount() {
	umount $D || { fail "umount"; return 1; }
	mount -t ext4 /dev/vda $D || { fail "mount again"; return 1; }
	v0=$(counter evm_verified)
	run_t "read OK|level SYSTEM PUBLIC|" $T read $D/etc/conf level || return 1
	run_t "read EPERM|" $T read $D/data/edited || return 1
	[ "$(counter evm_verified)" -gt "$v0" ] || { fail "nothing verified after remount"; return 1; }
	umount $D
}
