#!/bin/sh
# install-deps.sh - install every Debian 12 package attest needs, by name.
#
# Idempotent: packages already installed are left alone; `apt-get update` runs
# at most once, and only when something is missing. Called by `make check` and
# `make demo`, so a fresh Debian 12 machine needs nothing else.
#
# Usage: deploy/install-deps.sh [--print]   (--print lists the packages only)
set -eu

# Build toolchain and userspace libraries.
BUILD="build-essential pkg-config clang libclang-rt-14-dev llvm
 libssl-dev libjson-c-dev libcurl4-openssl-dev libmicrohttpd-dev libgnutls28-dev
 libsqlite3-dev sqlite3 libpq-dev libcmocka-dev libtss2-dev libsystemd-dev
 libarchive-dev"

# Test services, reference tools for cross-checks, benchmark helpers.
TEST="swtpm swtpm-tools tpm2-tools ima-evm-utils postgresql openssl curl
 python3 python3-jsonschema valgrind chromium libnss3-tools fonts-dejavu-core
 gpg lz4 zstd xz-utils initramfs-tools"

# Kernel side: headers for kbuild, stock kernels booted by the VM tests, qemu.
KVER_612="6.12.118+deb12"
KERNEL="linux-image-amd64 linux-headers-amd64
 linux-image-${KVER_612}-amd64-unsigned linux-headers-${KVER_612}-amd64
 qemu-system-x86 busybox-static kmod cpio sparse linux-source-6.1 dkms
 e2fsprogs attr"

# Debian packages (make deb) and the real-Debian guests (tests/vm/debian.sh).
DEB="debhelper dh-dkms lintian fakeroot mmdebstrap qemu-utils openssh-client"

PKGS="$BUILD $TEST $KERNEL $DEB"

if [ "${1:-}" = "--print" ]; then
	for p in $PKGS; do echo "$p"; done
	exit 0
fi

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done

# checkpatch.pl ships in no headers package: unpack it (with the data files
# it reads) from Debian's kernel source tarball, once.
checkpatch() {
	src=/usr/src/linux-source-6.1
	[ -x "$src/scripts/checkpatch.pl" ] && return 0
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || return 0
	echo "install-deps: unpacking checkpatch.pl from $tarball"
	$SUDO mkdir -p /usr/src
	$SUDO tar -xf "$tarball" -C /usr/src \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
}

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ -z "$missing" ]; then
	echo "install-deps: all $(echo $PKGS | wc -w) packages present"
	checkpatch
	exit 0
fi

echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
checkpatch
echo "install-deps: done"
