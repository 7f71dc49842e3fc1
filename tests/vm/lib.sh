#!/bin/sh
# lib.sh - shared pieces of the VM harness (sourced by tests/vm/run.sh and
# bench/vm/run.sh): build slim.ko for a Debian kernel, build an initramfs,
# boot the stock kernel under qemu TCG with swtpm.
#
# Kernels: each entry is "<tag> <kernel release>", image in /boot, headers in
# /usr/src/linux-headers-<release>.
VM_KERNELS="${VM_KERNELS:-6.1:6.1.0-57-amd64 6.12:6.12.118+deb12-amd64}"
VM_SRC=${VM_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VM_DIR="$VM_SRC/tests/vm"

vm_log() { echo "vm: $*" >&2; }

# ok NAME / ko NAME WHY [FILE...]: one PASS/FAIL line for test
# $VM_TEST_PREFIX/NAME (default vm/NAME; ko adds the tail of each FILE);
# the callers' pass and failn count them.
ok() {
	echo "PASS ${VM_TEST_PREFIX:-vm}/$1"
	pass=$((pass + 1))
}

ko() {
	name=$1
	shift
	echo "FAIL ${VM_TEST_PREFIX:-vm}/$name: $1"
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		echo "--- tail of $f"
		tr -d '\r' <"$f" | tail -n 40 | sed 's/^/    /'
	done
	failn=$((failn + 1))
}

# vm_kernel_release TAG -> the release for TAG in VM_KERNELS
vm_kernel_release() {
	for kv in $VM_KERNELS; do
		[ "${kv%%:*}" = "$1" ] && { echo "${kv#*:}"; return 0; }
	done
	return 1
}

# vm_build_module KREL OUTDIR -> OUTDIR/slim.ko (log in OUTDIR/build.log)
vm_build_module() {
	mkdir -p "$2"
	make -C "$VM_SRC/kernel" --no-print-directory \
		KDIR="/usr/src/linux-headers-$1" OUT="$2" modules \
		>"$2/build.log" 2>&1 || { cat "$2/build.log" >&2; return 1; }
	[ -f "$2/slim.ko" ]
}

# vm_modules KREL DIR: the drivers a guest needs (virtio PCI, net and
# block, ext4) in load order as DIR/NAME.ko and DIR/order, decompressed
vm_modules() {
	krel=$1
	dir=$2
	mkdir -p "$dir"
	: >"$dir/order"
	modprobe --show-depends -S "$krel" -a virtio_pci virtio_net \
		virtio_blk ext4 loop 2>/dev/null | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
		while read -r ko; do
			name=$(basename "$ko")
			name=${name%.xz}
			name=${name%.zst}
			name=${name%.ko}
			case "$ko" in
			*.xz) xz -dc "$ko" >"$dir/$name.ko" ;;
			*.zst) zstd -qdc "$ko" >"$dir/$name.ko" ;;
			*) cp "$ko" "$dir/$name.ko" ;;
			esac
			echo "$name" >>"$dir/order"
		done
	[ -s "$dir/order" ]
}

# vm_build_evm_disk IMG KEY UUID SLIMCTL: an ext4 image labeled and
# HMACed on this host with the project's tools: `slimctl label --offline`
# on a staging tree, mke2fs -d (which copies the xattrs), then for each
# labeled file the HMAC over the image's inode (`slimctl evm-hmac --ino`)
# written with debugfs (and for the directories /etc, /data). Files:
# /etc/conf, /etc/conf2 (SYSTEM PUBLIC),
# /data/low (UNTRUSTED PUBLIC), /data/edited (labeled UNTRUSTED, HMACed,
# then its label edited to SYSTEM PUBLIC with debugfs: an offline
# tampering), /data/nohmac (labeled, never HMACed).
vm_build_evm_disk() {
	img=$1
	key=$2
	uuid=$3
	slimctl=$4
	stage=$(mktemp -d "${TMPDIR:-/tmp}/vm-evm.XXXXXX")
	mkdir -p "$stage/etc" "$stage/data"
	for f in etc/conf etc/conf2 data/low data/edited data/nohmac; do
		echo "$f" >"$stage/$f"
	done
	printf '/ SYSTEM PUBLIC\n/data UNTRUSTED PUBLIC\n' >"$stage.policy"
	"$slimctl" label --offline --root "$stage" "$stage.policy" 2>"$stage.log" ||
		{ cat "$stage.log" >&2; rm -rf "$stage" "$stage.policy" "$stage.log"; return 1; }
	rm -f "$img"
	mke2fs -F -q -t ext4 -U "$uuid" -d "$stage" "$img" 32M >"$stage.log" 2>&1 ||
		{ cat "$stage.log" >&2; rm -rf "$stage" "$stage.policy" "$stage.log"; return 1; }
	# the directories are labeled too (slimctl label): HMACed as well
	for f in etc/conf etc/conf2 data/low data/edited etc data; do
		st=$(debugfs -R "stat /$f" "$img" 2>/dev/null)
		ino=$(echo "$st" | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
		gen=$(echo "$st" | sed -n 's/^Generation: \([0-9]*\).*/\1/p')
		"$slimctl" evm-hmac --key-file "$key" --uuid "$uuid" --generation "$gen" \
			--ino "$ino" --out "$stage.val" "$stage/$f" >/dev/null 2>"$stage.log" &&
			debugfs -w -R "ea_set -f $stage.val /$f security.slim.evm" "$img" >>"$stage.log" 2>&1 ||
			{ cat "$stage.log" >&2; rm -rf "$stage" "$stage.policy" "$stage.log" "$stage.val"; return 1; }
	done
	# the offline tampering, checked: the image's label must now differ
	printf 'SYSTEM PUBLIC' >"$stage.val"
	debugfs -w -R "ea_set -f $stage.val /data/edited security.slim" "$img" >>"$stage.log" 2>&1
	debugfs -R "ea_get /data/edited security.slim" "$img" 2>/dev/null | grep -q 'SYSTEM PUBLIC'
	rc=$?
	[ $rc = 0 ] || cat "$stage.log" >&2
	rm -rf "$stage" "$stage.policy" "$stage.log" "$stage.val"
	return $rc
}

# vm_copy_bin ROOT FILE: FILE and the libraries ldd lists, into ROOT
vm_copy_bin() {
	root=$1
	f=$2
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
	ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
	while read -r lib; do
		[ -f "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# vm_build_initramfs OUT.cpio.gz KO PLAN [BIN_DIR]
#   KO: slim.ko; PLAN: the word the guest init runs (tests|bench);
#   BIN_DIR: the project's binaries (copied with libraries and TCTIs).
#   VM_SCENARIOS, VM_SCN_LIMIT: see below.
#   With VM_EVM_KEY (a key file) and VM_KREL set: also the disk drivers of
#   VM_KREL, debugfs, tpm2_pcrextend and the key as /vm/evm.key.
vm_build_initramfs() {
	out=$1
	ko=$2
	plan=$3
	bindir=${4:-}
	root=$(mktemp -d "${TMPDIR:-/tmp}/vm-root.XXXXXX")
	chmod 755 "$root"
	mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
		"$root/tmp" "$root/root" "$root/lib" "$root/vm" "$root/etc"
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	cp "$ko" "$root/lib/slim.ko"
	cp "$VM_DIR/guest/init" "$root/init"
	cp "$VM_DIR/guest/"*.sh "$root/vm/"
	echo "$plan" >"$root/vm/plan"
	# VM_SCENARIOS: run only these (tests plan); VM_SCN_LIMIT: seconds per
	# scenario inside the guest (tests/vm/guest/common.sh, run_scn)
	[ -z "${VM_SCENARIOS:-}" ] || echo "$VM_SCENARIOS" >"$root/vm/only"
	[ -z "${VM_SCN_LIMIT:-}" ] || echo "$VM_SCN_LIMIT" >"$root/vm/limit"
	if [ -n "$bindir" ] && [ -d "$bindir" ]; then
		for b in "$bindir"/*; do
			if [ ! -f "$b" ] || [ ! -x "$b" ]; then
				continue
			fi
			mkdir -p "$root/usr/bin"
			vm_copy_bin "$root" "$b"
			cp -L "$b" "$root/usr/bin/"
		done
		# TCTIs are dlopen'd, ldd cannot see them
		for t in /usr/lib/x86_64-linux-gnu/libtss2-tcti-device.so.0 \
			/usr/lib/x86_64-linux-gnu/libtss2-tcti-swtpm.so.0; do
			[ -e "$t" ] && vm_copy_bin "$root" "$t"
		done
	fi
	# a dynamically linked program for the MMAP_CHECK scenario
	vm_copy_bin "$root" /usr/bin/basename
	# the EVM scenarios: an ext4 disk, offline tampering, a PCR extend
	if [ -n "${VM_EVM_KEY:-}" ]; then
		vm_modules "$VM_KREL" "$root/lib/modules/evm" || { rm -rf "$root"; return 1; }
		vm_copy_bin "$root" /sbin/debugfs
		vm_copy_bin "$root" /usr/bin/tpm2_pcrextend
		cp "$VM_EVM_KEY" "$root/vm/evm.key"
	fi
	# an open that an LSM (Landlock) denies after security_file_open()
	gcc -static -O2 -Wall -o "$root/bin/denied-open" "$VM_DIR/guest/denied-open.c" ||
		{ rm -rf "$root"; return 1; }
	# the lattice scenarios' probe (tests/vm/guest/lattice.sh)
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/slimtest" \
		"$VM_DIR/guest/slimtest.c" "$VM_DIR/guest/slimtest_ipc.c" \
		"$VM_DIR/guest/slimtest_proc.c" "$VM_DIR/guest/slimtest_uring.c" \
		"$VM_DIR/guest/slimtest_splice.c" "$VM_DIR/guest/slimtest_root.c" \
		"$VM_DIR/guest/slimtest_data.c" ||
		{ rm -rf "$root"; return 1; }
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
	rm -rf "$root"
}

# vm_boot KREL INITRD DIR TIMEOUT [EXTRA_CMDLINE]
#   Boots under qemu TCG with a fresh swtpm (and DIR/disk.img as a virtio
#   disk when it exists). Console: DIR/console.log,
#   data channel (guest /dev/ttyS1): DIR/data.log. Returns qemu's status.
vm_boot() {
	krel=$1
	initrd=$2
	dir=$3
	tmo=$4
	extra=${5:-}
	mkdir -p "$dir/tpm"
	rm -f "$dir/console.log" "$dir/data.log" "$dir/tpm.sock"
	swtpm_setup --tpm2 --tpmstate "$dir/tpm" --createek \
		--pcr-banks sha1,sha256 --overwrite >"$dir/swtpm_setup.log" 2>&1 ||
		{ cat "$dir/swtpm_setup.log" >&2; return 1; }
	swtpm socket --tpm2 --tpmstate dir="$dir/tpm" \
		--ctrl type=unixio,path="$dir/tpm.sock" --terminate \
		--log file="$dir/swtpm.log" &
	swpid=$!
	i=0
	while [ ! -S "$dir/tpm.sock" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	disk=""
	[ -f "$dir/disk.img" ] && disk="-drive file=$dir/disk.img,if=virtio,format=raw"
	# shellcheck disable=SC2086 # VM_QEMU_EXTRA: extra qemu options, split
	timeout "$tmo" qemu-system-x86_64 -accel tcg -smp 1 -m 768 ${VM_QEMU_EXTRA:-} $disk \
		-nographic -no-reboot -nodefaults \
		-kernel "/boot/vmlinuz-$krel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic rootfstype=ramfs loglevel=4 $extra" \
		-chardev socket,id=chrtpm,path="$dir/tpm.sock" \
		-tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
		-serial file:"$dir/console.log" -serial file:"$dir/data.log" \
		-monitor none -display none >"$dir/qemu.log" 2>&1
	rc=$?
	kill "$swpid" 2>/dev/null
	wait "$swpid" 2>/dev/null
	return $rc
}

# vm_block LOG NAME: the lines between "@@BEGIN NAME" and "@@END NAME"
vm_block() {
	tr -d '\r' <"$1" | sed -n "/^@@BEGIN $2\$/,/^@@END $2\$/p" | sed '1d;$d'
}
