#!/bin/sh
# deb-enforce-test.sh O - slim.ko in enforce mode on a real Debian 12 host
# (issue 37), as a test of `make check`. The guest is tests/vm/debian.sh's
# (mmdebstrap minbase + systemd, sshd, cron, python3; its tarball cached),
# with slim.ko of each kernel of VM_KERNELS, deploy/slim's modules-load.d
# and modprobe.d (mode=enforce: loaded by systemd-modules-load, no
# initramfs), and every file and directory labeled offline on the host with
# `slimctl label --root STAGE --offline deploy/slim/debian.policy` plus two
# lines for the test daemon (its script and its state UNTRUSTED PUBLIC).
# One boot per kernel, both at once. Judged over ssh and on the host:
#   the host reaches multi-user.target in enforce mode with no failed unit;
#   an ssh login gets a SYSTEM shell; the network-facing daemon slim-testd
#   (deb-enforce/slim-testd) is UNTRUSTED, can create or change nothing
#   under /etc, /usr and /var/lib (ld.so.preload, cron.d, a directory, a
#   symlink, /usr/local/bin, dpkg's state), keeps writing the file it
#   opened at start and creates files and directories in its own state;
#   PID 1 and journald stay SYSTEM while it talks to them (sd_notify, syslog,
#   stdout) and the journal holds its lines; the SYSTEM shell installs a
#   package with apt from a signed repository served by this host (the http
#   method receives from the network); poweroff is clean: no "Could not
#   kill" on the console, and the root file system was unmounted or
#   remounted read-only (ext4 state "clean" in the disk afterwards).
# Prints PASS/FAIL lines and "enforce: N passed, N failed".
set -u
O=$(cd "${1:?usage: deb-enforce-test.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/debian.sh"
D=$O/vm/deb-enforce
SLIMCTL=${SLIMCTL:-$O/rel/bin/slimctl}
BOOT_TIMEOUT=${DEB_BOOT_TIMEOUT:-900}
pass=0
failn=0
VM_TEST_PREFIX=vm/deb-enforce
t0=$(date +%s)
note() { echo "     [$(($(date +%s) - t0))s] $*"; }

REPO_PID=
finish() {
	for kv in $VM_KERNELS; do
		[ -d "$D/${kv%%:*}" ] && deb_stop "$D/${kv%%:*}" >/dev/null 2>&1
	done
	[ -n "$REPO_PID" ] && kill "$REPO_PID" 2>/dev/null
	[ -d "$D/gnupg" ] && GNUPGHOME=$D/gnupg gpgconf --kill gpg-agent 2>/dev/null
	note "deb-enforce: $(($(date +%s) - t0))s in all"
	echo "enforce: $pass passed, $failn failed"
	[ "$failn" = 0 ]
	exit $?
}

rm -rf "$D"
mkdir -p "$D"
[ -x "$SLIMCTL" ] || { ko setup "no $SLIMCTL (make rel first)"; finish; }

# 1. slim.ko for each kernel (incremental: tests/vm/run.sh's build dirs)
for kv in $VM_KERNELS; do
	tag=${kv%%:*}
	krel=${kv#*:}
	if vm_build_module "$krel" "$O/vm/$tag/module" >"$D/build-$tag.log" 2>&1; then
		:
	else
		ko "module_$tag" "slim.ko does not build for $krel" "$D/build-$tag.log"
		finish
	fi
done

# 2. a signed flat apt repository with one package, served over http
R=$D/repo
mkdir -p "$R/pkg/DEBIAN" "$R/pkg/usr/bin" "$R/www" "$D/gnupg"
chmod 700 "$D/gnupg"
cat >"$R/pkg/DEBIAN/control" <<EOF
Package: slim-hello
Version: 1.0
Architecture: all
Maintainer: attest tests <tests@example.org>
Description: a package installed in enforce mode (tests/vm/deb-enforce-test.sh)
EOF
printf '#!/bin/sh\necho hello from slim-hello\n' >"$R/pkg/usr/bin/slim-hello"
chmod 755 "$R/pkg/usr/bin/slim-hello"
export GNUPGHOME=$D/gnupg
if dpkg-deb -Zgzip --build --root-owner-group "$R/pkg" "$R/www/slim-hello_1.0_all.deb" >"$D/repo.log" 2>&1 &&
	(cd "$R/www" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>>"$D/repo.log" &&
		gzip -9k Packages) &&
	gpg --batch --passphrase '' --quick-gen-key 'attest test repo <repo@example.org>' \
		ed25519 sign never >>"$D/repo.log" 2>&1 &&
	gpg --batch --export >"$R/repo.gpg" 2>>"$D/repo.log"; then
	{
		echo "Origin: attest-tests"
		echo "Label: attest-tests"
		echo "Suite: ./"
		echo "Date: $(date -Ru)"
		echo "SHA256:"
		for f in Packages Packages.gz; do
			echo " $(sha256sum "$R/www/$f" | cut -d' ' -f1) $(stat -c %s "$R/www/$f") $f"
		done
	} >"$R/www/Release"
	gpg --batch --yes --clearsign -o "$R/www/InRelease" "$R/www/Release" >>"$D/repo.log" 2>&1
fi
PORT=$(deb_free_port)
(cd "$R/www" && exec python3 -m http.server --bind 127.0.0.1 "$PORT") >"$D/http.log" 2>&1 &
REPO_PID=$!
if [ -s "$R/www/InRelease" ] && [ -s "$R/repo.gpg" ]; then
	ok repo
else
	ko repo "cannot build the signed repository" "$D/repo.log"
	finish
fi

# 3. the image: slim.ko, its boot files, the daemon, the repository's key
# and source, every file and directory labeled offline
# DEB_ENFORCE_POLICY: another labeling policy instead of deploy/slim's (to
# see what fails without a rule; not a way to pass)
POLICY=$D/policy
cat "${DEB_ENFORCE_POLICY:-$VM_SRC/deploy/slim/debian.policy}" - >"$POLICY" <<'EOF'
# the test daemon: network-facing, at its final level from its start
/usr/local/sbin/slim-testd              UNTRUSTED PUBLIC
/var/lib/slim-testd                     UNTRUSTED PUBLIC
EOF
enforce_stage() {
	st=$1
	for kv in $VM_KERNELS; do
		krel=${kv#*:}
		[ -d "$st/lib/modules/$krel" ] || continue
		mkdir -p "$st/lib/modules/$krel/updates"
		cp "$O/vm/${kv%%:*}/module/slim.ko" "$st/lib/modules/$krel/updates/" &&
			depmod -b "$st" "$krel" || return 1
	done
	install -D -m 644 "$VM_SRC/deploy/slim/modules-load.d/slim.conf" "$st/etc/modules-load.d/slim.conf" &&
		install -D -m 644 "$VM_SRC/deploy/slim/modprobe.d/slim.conf" "$st/etc/modprobe.d/slim.conf" &&
		install -D -m 755 "$VM_SRC/tests/vm/deb-enforce/slim-testd" "$st/usr/local/sbin/slim-testd" &&
		install -D -m 644 "$VM_SRC/tests/vm/deb-enforce/slim-testd.service" \
			"$st/etc/systemd/system/slim-testd.service" &&
		mkdir -p "$st/etc/systemd/system/multi-user.target.wants" "$st/var/lib/slim-testd" &&
		ln -sf /etc/systemd/system/slim-testd.service \
			"$st/etc/systemd/system/multi-user.target.wants/slim-testd.service" &&
		: >"$st/var/lib/slim-testd/out.log" &&
		install -D -m 644 "$R/repo.gpg" "$st/etc/apt/keyrings/attest-test.gpg" &&
		echo "deb [signed-by=/etc/apt/keyrings/attest-test.gpg] http://10.0.2.2:$PORT/ ./" \
			>"$st/etc/apt/sources.list.d/attest-test.list" &&
		"$SLIMCTL" label --root "$st" --offline "$POLICY"
}
s=$(date +%s)
if DEB_STAGE_HOOK=enforce_stage deb_image "$O/vm/debian" "$O/vm/debian/enforce.img" >"$D/image.log" 2>&1; then
	ok image
	note "image labeled in $(($(date +%s) - s))s: $(grep -o 'labeled [0-9]* files' "$D/image.log")"
else
	ko image "cannot build the labeled image" "$D/image.log"
	finish
fi

# 4. boot every kernel at once
for kv in $VM_KERNELS; do
	deb_boot "$D/${kv%%:*}" "${kv#*:}" "$O/vm/debian/enforce.img" ||
		{ ko "boot_${kv%%:*}" "qemu did not start"; finish; }
done

# g TAG CMD: in guest TAG as root over ssh, output in $D/TAG.out
g() { tg=$1; shift; deb_ssh "$D/$tg" "$@" >"$D/$tg.out" 2>&1; }
gv() { tg=$1; shift; deb_ssh "$D/$tg" "$@" 2>/dev/null | tr -d '\r'; }
# level TAG PID: the task's label (the module's tasks file)
level() { gv "$1" "awk -F'\t' '\$1 == \"$2\" { print \$2 }' /sys/kernel/security/slim/tasks"; }
# ask TAG LINES: send LINES to slim-testd over TCP (from a child of the
# shell: reading the answer demotes that child only), print the answers
ask() {
	gv "$1" "python3 -c 'import socket,sys
s = socket.create_connection((\"127.0.0.1\", 7777))
f = s.makefile(\"rw\")
for l in sys.argv[1:]:
    f.write(l + \"\n\"); f.flush(); print(f.readline().strip())' $2" | tr '\n' '|'
}

check_guest() {
	tag=$1
	G=$D/$tag
	s=$(date +%s)
	if ! deb_wait_ssh "$G" "$BOOT_TIMEOUT"; then
		ko "${tag}_boot" "no ssh in ${BOOT_TIMEOUT}s" "$G/console.log"
		return 1
	fi
	st=$(gv "$tag" 'timeout 300 systemctl is-system-running --wait')
	if [ "$st" = running ] && [ "$(gv "$tag" 'cat /sys/kernel/security/slim/mode')" = enforce ]; then
		ok "${tag}_multi_user_enforce"
		note "$tag: ssh after $(($(date +%s) - s))s, running, enforce; $(gv "$tag" 'systemd-analyze time' | head -n 1)"
	else
		g "$tag" 'cat /sys/kernel/security/slim/mode; systemctl --failed --no-legend; journalctl -b -p warning --no-pager | tail -n 40; dmesg | grep slim: | tail -n 20'
		ko "${tag}_multi_user_enforce" "state '$st' (want running, enforce, no failed unit)" "$D/$tag.out"
	fi
	sh_level=$(gv "$tag" 'awk -F"\t" -v p=$$ "\$1 == p { print \$2 }" /sys/kernel/security/slim/tasks')
	case $sh_level in
	"SYSTEM PUBLIC"*) ok "${tag}_ssh_system_shell" ;;
	*) ko "${tag}_ssh_system_shell" "the ssh shell is '$sh_level'" ;;
	esac

	# the daemon: UNTRUSTED, refused everything above, working in its own
	dpid=$(gv "$tag" 'systemctl show -p MainPID --value slim-testd')
	want="EACCES|EACCES|EACCES|EACCES|EACCES|EACCES|EACCES|EACCES|EACCES|EACCES|OK|OK|OK|OK|OK|OK|OK|"
	got=$(ask "$tag" "'create /etc/ld.so.preload' 'create /etc/cron.d/evil' \
'create /usr/local/bin/evil' 'mkdir /etc/evil.d' 'symlink /etc/evil-link' \
'append /etc/hostname' 'create /var/lib/evil' 'create /var/lib/dpkg/evil' \
'unlink /etc/motd' 'append /usr/local/sbin/slim-testd.new' \
'log marker-$tag' 'notify served-$tag' 'create /var/lib/slim-testd/new' \
'mkdir /var/lib/slim-testd/sub' 'create /var/lib/slim-testd/sub/inner' \
'append /var/lib/slim-testd/sub/inner' 'unlink /var/lib/slim-testd/new'")
	dl=$(level "$tag" "$dpid")
	if [ "$got" = "$want" ] && [ "${dl%% *}" = UNTRUSTED ] &&
		g "$tag" 'for f in /etc/ld.so.preload /etc/cron.d/evil /usr/local/bin/evil /etc/evil.d /etc/evil-link /var/lib/evil /var/lib/dpkg/evil; do [ -e $f ] || [ -L $f ] && echo "exists: $f"; done; grep -c slim-testd /etc/hostname; [ -e /etc/motd ] || echo "motd gone"; grep -q "line marker" /var/lib/slim-testd/out.log || echo "out.log not written"; ls -la /var/lib/slim-testd /var/lib/slim-testd/sub' &&
		! grep -q 'exists:\|motd gone\|not written' "$D/$tag.out" && [ "$(head -n 1 "$D/$tag.out")" = 0 ]; then
		ok "${tag}_daemon_demoted_confined"
	else
		cp "$D/$tag.out" "$D/$tag.files"
		g "$tag" 'systemctl status slim-testd --no-pager; dmesg | grep slim: | tail -n 30'
		ko "${tag}_daemon_demoted_confined" "daemon pid $dpid level '$dl'; answers '$got', want '$want'" \
			"$D/$tag.files" "$D/$tag.out"
	fi

	# PID 1 and journald: SYSTEM; the journal has the daemon's lines
	jpid=$(gv "$tag" 'systemctl show -p MainPID --value systemd-journald')
	l1=$(level "$tag" 1)
	lj=$(level "$tag" "$jpid")
	nj=$(gv "$tag" "journalctl -u slim-testd --no-pager -o cat | grep -c 'marker-$tag'")
	if [ "${l1%% *}" = SYSTEM ] && [ "${lj%% *}" = SYSTEM ] && [ "$nj" = 2 ] &&
		[ "$(gv "$tag" 'systemctl show -p StatusText --value slim-testd')" = "served-$tag" ]; then
		ok "${tag}_pid1_journald_system"
	else
		g "$tag" 'journalctl -u slim-testd --no-pager; journalctl -u systemd-journald --no-pager | tail; dmesg | grep slim: | tail -n 20'
		ko "${tag}_pid1_journald_system" "PID 1 '$l1', journald '$lj', daemon lines in the journal $nj (want 2)" "$D/$tag.out"
	fi

	# apt, from the SYSTEM shell, from the signed repository on this host
	if g "$tag" "apt-get update -q -o Dir::Etc::sourcelist=sources.list.d/attest-test.list \
		-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q slim-hello &&
		slim-hello && dpkg-query -W -f='\${Status}\n' slim-hello" &&
		grep -q 'hello from slim-hello' "$D/$tag.out" &&
		grep -q 'install ok installed' "$D/$tag.out"; then
		ok "${tag}_apt_install_signed"
	else
		g "$tag" 'tail -n 30 /var/log/apt/term.log; dmesg | grep slim: | tail -n 20' || true
		ko "${tag}_apt_install_signed" "apt could not install slim-hello" "$D/$tag.out"
	fi
	gv "$tag" 'cat /sys/kernel/security/slim/counters' >"$D/$tag.counters"
	gv "$tag" 'dmesg | grep "slim: \(denied\|demoted\|permissive\)"' >"$D/$tag.denials"
	note "$tag: $(grep -E '^(demotions_ip_receive|guard_reads|denied_write_up|permissive_would_deny) ' "$D/$tag.counters" | tr '\n' ' ')"

	# poweroff: clean
	s=$(date +%s)
	deb_stop "$G"
	if grep -q 'Could not kill' "$G/console.log"; then
		ko "${tag}_clean_shutdown" "processes left at shutdown" "$G/console.log"
		return 0
	fi
	qemu-img convert -O raw "$G/disk.qcow2" "$G/after.raw" 2>"$G/convert.log"
	fs=$(dumpe2fs -h "$G/after.raw" 2>/dev/null | sed -n 's/^Filesystem state: *//p')
	rm -f "$G/after.raw"
	if [ "$fs" = clean ]; then
		ok "${tag}_clean_shutdown"
		note "$tag: poweroff in $(($(date +%s) - s))s, / clean"
	else
		ko "${tag}_clean_shutdown" "root file system state '$fs' after poweroff" "$G/console.log" "$G/convert.log"
	fi
}

jobs_pids=""
for kv in $VM_KERNELS; do
	check_guest "${kv%%:*}" >"$D/${kv%%:*}.result" 2>&1 &
	jobs_pids="$jobs_pids $!"
done
# the guests' checks only (the repository's http server runs on)
for p in $jobs_pids; do
	wait "$p"
done
for kv in $VM_KERNELS; do
	cat "$D/${kv%%:*}.result"
	pass=$((pass + $(grep -c '^PASS' "$D/${kv%%:*}.result")))
	failn=$((failn + $(grep -c '^FAIL' "$D/${kv%%:*}.result")))
done
finish
