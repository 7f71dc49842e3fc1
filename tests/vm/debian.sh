#!/bin/sh
# debian.sh - real Debian 12 guests under qemu TCG with swtpm: the shared
# guest builder of the tests that need a real userland (systemd, apt,
# sshd) instead of the busybox initramfs. Sourced after tests/vm/lib.sh.
#
#   deb_rootfs DIR            the cached mmdebstrap tarball -> prints its path
#   deb_image DIR IMG [SIZE]  an ext4 image of it (mkfs.ext4 -d, no mounts),
#                             with the guests' kernel modules, ssh key, network
#   deb_boot G KREL IMG [CMDLINE]  boots guest dir G (swtpm with an EK
#                             certificate, ssh forwarded to a free port)
#   deb_wait_ssh G TIMEOUT    until the guest answers on ssh
#   deb_ssh G CMD...          runs CMD in the guest as root (its status)
#   deb_put G FILE... DEST    copies files into the guest
#   deb_stop G                powers the guest off (kills it after 120 s)
#   deb_packages SRC O        the project's .debs in O/deb/VERSION (mk/deb.sh)
#   deb_stage_apt STAGE KEEP PKG.deb...  apt installs local packages in a
#                             staged tree (chroot), before the first boot
#
# Settings (environment):
#   DEB_SUITE     bookworm
#   DEB_SOURCES   apt source files given to mmdebstrap and kept in the guest
#                 (default: the files of /etc/apt that name debian.org)
#   DEB_PACKAGES  what the image has besides minbase (see DEB_PACKAGES_BASE);
#                 no TPM userspace: a package that needs it must pull it
#   DEB_CACHE     where tarballs are kept (default DIR given to deb_rootfs)
#   DEB_STAGE_HOOK  deb_image runs it with the staged tree's path before mkfs
#   DEB_QEMU_EXTRA  more qemu options for deb_boot (bench/vm/debian.sh: -icount)
#
# The guest: Debian 12 minbase + systemd, udev, openssh-server, python3,
# cron, iproute2, kmod; systemd-networkd with DHCP on qemu's user network
# (the host is 10.0.2.2, DNS 10.0.2.3: the guest reaches the same archive as
# the host, through the host); root logs in with the key DIR/ssh/id_ed25519.
# The stock kernel boots it with a small initramfs (busybox, virtio and ext4
# modules: the stock kernel has them as modules) that mounts /dev/vda and
# switches to systemd. Console: G/console.log.

DEB_SUITE=${DEB_SUITE:-bookworm}
DEB_PACKAGES_BASE="systemd systemd-sysv udev openssh-server python3 cron
 iproute2 kmod procps"
DEB_PACKAGES=${DEB_PACKAGES:-$DEB_PACKAGES_BASE}

deb_log() { echo "debian-guest: $*" >&2; }

deb_sources() {
	if [ -n "${DEB_SOURCES:-}" ]; then
		echo "$DEB_SOURCES"
		return 0
	fi
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -q 'debian\.org' "$f" && echo "$f"
	done
	return 0
}

# deb_rootfs DIR: DIR/rootfs-KEY.tar, made once by mmdebstrap; KEY is a hash
# of everything that decides its content but the day: suite, package list,
# apt sources, mmdebstrap's version and the hooks below. Prints the path.
deb_rootfs() {
	rf_dir=${DEB_CACHE:-$1}
	mkdir -p "$rf_dir"
	srcs=$(deb_sources)
	[ -n "$srcs" ] || { deb_log "no apt source naming debian.org in /etc/apt"; return 1; }
	# the hooks run in the chroot (mmdebstrap root mode): network by DHCP,
	# DNS of qemu's user network, root's ssh by key only, no TPM userspace
	hooks='mkdir -p "$1/etc/systemd/network" "$1/root/.ssh" "$1/etc/modprobe.d"
printf "[Match]\nName=en* eth*\n[Network]\nDHCP=ipv4\n" >"$1/etc/systemd/network/50-dhcp.network"
printf "nameserver 10.0.2.3\n" >"$1/etc/resolv.conf"
printf "debian-guest\n" >"$1/etc/hostname"
printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"
printf "PermitRootLogin prohibit-password\nPasswordAuthentication no\nUseDNS no\n" >"$1/etc/ssh/sshd_config.d/guest.conf"
chroot "$1" systemctl enable systemd-networkd ssh
chroot "$1" systemctl mask systemd-networkd-wait-online.service
chmod 700 "$1/root/.ssh"'
	key=$( (echo "$DEB_SUITE"; echo $DEB_PACKAGES; cat $srcs; mmdebstrap --version; echo "$hooks") |
		sha256sum | cut -c1-16)
	tar=$rf_dir/rootfs-$key.tar
	if [ -s "$tar" ]; then
		deb_log "cached root filesystem $tar"
		echo "$tar"
		return 0
	fi
	deb_log "mmdebstrap $DEB_SUITE minbase + $(echo $DEB_PACKAGES) -> $tar"
	inc=$(echo $DEB_PACKAGES | tr ' ' ',')
	# shellcheck disable=SC2086 # one source file an argument
	rm -rf "$tar.part"
	mmdebstrap --mode=root --format=tar --variant=minbase --include="$inc" \
		--customize-hook="$hooks" "$DEB_SUITE" "$tar.part" $srcs \
		>"$rf_dir/mmdebstrap.log" 2>&1 ||
		{ tail -n 30 "$rf_dir/mmdebstrap.log" >&2; rm -rf "$tar.part"; return 1; }
	mv "$tar.part" "$tar"
	echo "$tar"
}

# deb_ssh_key DIR: DIR/ssh/id_ed25519 (made once)
deb_ssh_key() {
	mkdir -p "$1/ssh"
	[ -f "$1/ssh/id_ed25519" ] ||
		ssh-keygen -q -t ed25519 -N '' -C debian-guest -f "$1/ssh/id_ed25519" >/dev/null
}

# deb_initramfs KREL OUT: busybox, the virtio, virtio_net and ext4 modules
# of KREL (lib.sh's vm_modules), an init that loads them, mounts /dev/vda
# and switches to its systemd
deb_initramfs() {
	krel=$1
	out=$2
	r=$(mktemp -d "${TMPDIR:-/tmp}/deb-initrd.XXXXXX")
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/newroot"
	cp /bin/busybox "$r/bin/busybox"
	for a in sh mount umount insmod switch_root sleep cat echo mkdir; do
		ln -s busybox "$r/bin/$a"
	done
	vm_modules "$krel" "$r/lib/modules" || { rm -rf "$r"; return 1; }
	cat >"$r/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order); do
	insmod /lib/modules/$m.ko 2>/dev/null
done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
	echo "initramfs: cannot mount /dev/vda"
	sleep 5
	echo o >/proc/sysrq-trigger
fi
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /sbin/init
EOF
	chmod 755 "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
	rc=$?
	rm -rf "$r"
	return $rc
}

# deb_image DIR IMG [SIZE]: IMG (ext4, SIZE default 3G, sparse) from the
# cached tarball, with /lib/modules for each kernel of VM_KERNELS (the
# drivers udev and modprobe need, depmod'ed), root's ssh key, and one
# initramfs per kernel as DIR/initrd-KREL.gz
deb_image() {
	im_dir=$1
	img=$2
	size=${3:-3G}
	tar=$(deb_rootfs "$im_dir") || return 1
	deb_ssh_key "$im_dir" || return 1
	stage=$im_dir/stage
	rm -rf "$stage"
	mkdir -p "$stage"
	tar -xf "$tar" -C "$stage" || return 1
	cp "$im_dir/ssh/id_ed25519.pub" "$stage/root/.ssh/authorized_keys"
	chmod 600 "$stage/root/.ssh/authorized_keys"
	for kv in $VM_KERNELS; do
		krel=${kv#*:}
		[ -f "/boot/vmlinuz-$krel" ] || continue
		md=$stage/lib/modules/$krel
		mkdir -p "$md/kernel/extra"
		for f in modules.builtin modules.builtin.modinfo modules.order; do
			cp "/lib/modules/$krel/$f" "$md/" || return 1
		done
		vm_modules "$krel" "$im_dir/mods-$krel" || return 1
		cp "$im_dir/mods-$krel/"*.ko "$md/kernel/extra/"
		depmod -b "$stage" "$krel" || return 1
		deb_initramfs "$krel" "$im_dir/initrd-$krel.gz" || return 1
	done
	# DEB_STAGE_HOOK: a command given the staged tree before mkfs (files,
	# labels: mkfs.ext4 -d copies the xattrs)
	if [ -n "${DEB_STAGE_HOOK:-}" ]; then
		$DEB_STAGE_HOOK "$stage" || return 1
	fi
	rm -f "$img"
	mkfs.ext4 -q -F -L debian-root -d "$stage" "$img" "$size" >"$im_dir/mkfs.log" 2>&1 ||
		{ cat "$im_dir/mkfs.log" >&2; return 1; }
	rm -rf "$stage"
}

# deb_stage_apt STAGE KEEP PKG.deb...: `apt-get install ./PKG.deb...` in a
# chroot of a staged tree (a DEB_STAGE_HOOK: before the first boot, at this
# host's speed instead of minutes under TCG); apt pulls the dependencies
# from the tree's own sources (the archive), with this host's DNS for the
# time of the install. The .debs apt downloaded are copied to KEEP (when
# not empty: a whitelist from dpkg's status needs them); the lists, the
# downloads and the given packages are removed from the tree again.
deb_stage_apt() {
	sa_st=$1
	sa_keep=$2
	shift 2
	cp "$sa_st/etc/resolv.conf" "$sa_st/etc/resolv.conf.deb-stage" &&
		cp -L /etc/resolv.conf "$sa_st/etc/resolv.conf" &&
		mkdir -p "$sa_st/root/deb-stage" &&
		cp "$@" "$sa_st/root/deb-stage/" || return 1
	sa_rc=0
	chroot "$sa_st" apt-get -q -o Acquire::Languages=none update || sa_rc=1
	[ $sa_rc = 0 ] && { chroot "$sa_st" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends /root/deb-stage/*.deb' || sa_rc=1; }
	if [ $sa_rc = 0 ] && [ -n "$sa_keep" ]; then
		mkdir -p "$sa_keep" &&
			for f in "$sa_st"/var/cache/apt/archives/*.deb; do
				[ -f "$f" ] && cp "$f" "$sa_keep/"
			done
	fi
	chroot "$sa_st" apt-get clean
	rm -rf "$sa_st/var/lib/apt/lists/"* "$sa_st/root/deb-stage"
	mv "$sa_st/etc/resolv.conf.deb-stage" "$sa_st/etc/resolv.conf" || sa_rc=1
	return $sa_rc
}

# deb_packages SRC O: the project's Debian packages of SRC's version in
# O/deb/VERSION/ (mk/deb.sh, as `make deb`), built again only when a file
# of SRC they are made from is newer than the attest-agent .deb there
# (make check's deb suite has just built them); prints what it did
deb_packages() {
	dp_ver=$(cat "$1/VERSION")
	dp_deb=$2/deb/$dp_ver/attest-agent_${dp_ver}_amd64.deb
	if [ -f "$dp_deb" ] && [ -z "$(cd "$1" && find agent common debian deploy kernel mk schemas \
		slimctl verifier Makefile VERSION -newer "$dp_deb" -print 2>/dev/null | head -n 1)" ]; then
		echo "deb: $dp_deb is newer than the files it is built from: not built again"
		return 0
	fi
	"$1/mk/deb.sh" "$1" "$2/deb"
}

# deb_free_port: a TCP port free on 127.0.0.1 now
deb_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# deb_boot G KREL IMG [CMDLINE]: G/ holds the guest's swtpm state (made with
# an EK certificate from swtpm-localca the first time), its disk (a qcow2
# overlay on IMG, made the first time), console.log, ssh.port
deb_boot() {
	g=$1
	krel=$2
	img=$3
	extra=${4:-}
	mkdir -p "$g/tpm"
	if [ ! -f "$g/tpm/tpm2-00.permall" ]; then
		swtpm_setup --tpm2 --tpmstate "$g/tpm" --create-ek-cert \
			--lock-nvram --pcr-banks sha1,sha256 --overwrite \
			>"$g/swtpm_setup.log" 2>&1 || { cat "$g/swtpm_setup.log" >&2; return 1; }
	fi
	if [ ! -f "$g/disk.qcow2" ]; then
		qemu-img create -q -f qcow2 -b "$(cd "$(dirname "$img")" && pwd)/$(basename "$img")" \
			-F raw "$g/disk.qcow2" || return 1
	fi
	initrd=$(dirname "$img")/initrd-$krel.gz
	[ -f "$initrd" ] || { deb_log "no initramfs for $krel ($initrd)"; return 1; }
	rm -f "$g/tpm.sock"
	swtpm socket --tpm2 --tpmstate dir="$g/tpm" \
		--ctrl type=unixio,path="$g/tpm.sock" --terminate \
		--log file="$g/swtpm.log" &
	echo $! >"$g/swtpm.pid"
	i=0
	while [ ! -S "$g/tpm.sock" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	port=$(deb_free_port)
	echo "$port" >"$g/ssh.port"
	# the key of the image's directory (deb_image)
	echo "$(cd "$(dirname "$img")" && pwd)/ssh/id_ed25519" >"$g/ssh.key"
	echo "$krel" >"$g/krel"
	# shellcheck disable=SC2086 # DEB_QEMU_EXTRA: extra qemu options, split
	qemu-system-x86_64 -accel tcg -smp 1 -m 1024 ${DEB_QEMU_EXTRA:-} -nographic -nodefaults \
		-kernel "/boot/vmlinuz-$krel" -initrd "$initrd" \
		-append "console=ttyS0 root=/dev/vda rw panic=-1 quiet loglevel=4 $extra" \
		-drive file="$g/disk.qcow2",if=virtio,format=qcow2 \
		-chardev socket,id=chrtpm,path="$g/tpm.sock" \
		-tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
		-netdev user,id=n0,hostfwd=tcp:127.0.0.1:"$port"-:22 \
		-device virtio-net-pci,netdev=n0 \
		-serial file:"$g/console.log" -monitor none -display none \
		>"$g/qemu.log" 2>&1 &
	echo $! >"$g/qemu.pid"
}

deb_ssh_opts() {
	echo "-i $(cat "$1/ssh.key") -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=8"
}

# deb_ssh G CMD...: CMD (one shell command line) as root in the guest
deb_ssh() {
	g=$1
	shift
	# shellcheck disable=SC2046 # options split on purpose
	ssh $(deb_ssh_opts "$g") -p "$(cat "$g/ssh.port")" root@127.0.0.1 "$@"
}

# deb_put G FILE... DEST: scp into the guest
deb_put() {
	g=$1
	shift
	n=$#
	dest=$(eval echo "\${$n}")
	files=""
	i=1
	while [ $i -lt $n ]; do
		files="$files $(eval echo "\${$i}")"
		i=$((i + 1))
	done
	# shellcheck disable=SC2046,SC2086
	scp -q $(deb_ssh_opts "$g") -P "$(cat "$g/ssh.port")" $files root@127.0.0.1:"$dest"
}

# deb_wait_ssh G TIMEOUT: until ssh answers (fails at once when qemu died)
deb_wait_ssh() {
	end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt "$end" ]; do
		kill -0 "$(cat "$1/qemu.pid")" 2>/dev/null || return 1
		deb_ssh "$1" true 2>/dev/null && return 0
		sleep 3
	done
	return 1
}

# deb_stop G: poweroff over ssh, qemu killed after 120 s; swtpm ends with it
deb_stop() {
	g=$1
	[ -f "$g/qemu.pid" ] || return 0
	pid=$(cat "$g/qemu.pid")
	deb_ssh "$g" 'systemctl poweroff' >/dev/null 2>&1 &
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	kill "$pid" 2>/dev/null
	rm -f "$g/qemu.pid"
	if [ -f "$g/swtpm.pid" ]; then
		sleep 1
		kill "$(cat "$g/swtpm.pid")" 2>/dev/null
		rm -f "$g/swtpm.pid"
	fi
}
