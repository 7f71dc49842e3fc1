#!/bin/sh
# fleet.sh - a fleet of qemu guests attested by a real attest-verifier on
# this host. Sourced (after tests/vm/lib.sh) by deploy/demo.sh and
# tests/vm/fleet-test.sh.
#
# Settings (environment):
#   FLEET_DIR   work directory (PKI, verifier database, one gN/ per guest)
#   FLEET_BIN   the project's binaries (O/rel/bin)
#   FLEET_KRELS kernel releases of the guests, one per guest, the last
#               repeated (default: the 6.1 of VM_KERNELS)
#   FLEET_INTERVAL  seconds between attestations (default 5)
#   FLEET_LOGS  the lists the verifier asks for (default "ima slim")
#
# Each guest: the stock Debian kernel under qemu TCG with its own swtpm
# (EK certificate from swtpm-localca), mainline IMA (ima_policy=tcb,
# PCR 10), slim.ko (PCR 11, mode=enforce, which the whitelist's lattice
# section requires), a virtio disk for the agent's identity and
# user networking (the host's loopback is 10.0.2.2 to the guest); its
# console is gN/console.log, its command channel gN/cmd.sock
# (tests/vm/guest/fleet-init lists the commands).

FLEET_INTERVAL=${FLEET_INTERVAL:-5}
# the lists the verifier asks the guests for (each replayed to its PCR)
FLEET_LOGS=${FLEET_LOGS:-"ima slim"}
FLEET_LOCALCA=/var/lib/swtpm-localca

fleet_log() { echo "fleet: $*" >&2; }

# attestctl with the demo's admin certificate
fleet_ctl() {
	ATTEST_URL="https://127.0.0.1:$FLEET_PORT" \
		ATTEST_CA="$FLEET_DIR/pki/server-ca.pem" \
		ATTEST_CERT="$FLEET_DIR/pki/admin.pem" \
		ATTEST_KEY="$FLEET_DIR/pki/admin.key" \
		"$FLEET_BIN/attestctl" "$@"
}

# fleet_json_get FILE KEY... : a value from a JSON document (python3)
fleet_json_get() {
	python3 - "$@" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
EOF
}

# fleet_build_root ROOT KREL KO: the guests' root filesystem (one for all)
fleet_build_root() {
	root=$1
	krel=$2
	ko=$3
	rm -rf "$root"
	mkdir -p "$root"
	chmod 755 "$root"
	for d in bin sbin usr/bin proc sys dev run tmp root etc/attest \
		var/lib/attest-agent lib/modules opt/extra opt/input; do
		mkdir -p "$root/$d"
	done
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	cp "$ko" "$root/lib/slim.ko"
	vm_modules "$krel" "$root/lib/modules/fleet" || return 1
	# a module that is on no whitelist (the demo loads it)
	dummy=$(modprobe --show-depends -S "$krel" dummy 2>/dev/null |
		awk '$1 == "insmod" { print $2 }' | tail -n 1)
	case "$dummy" in
	*.xz) xz -dc "$dummy" >"$root/opt/extra/dummy.ko" ;;
	*) cp "$dummy" "$root/opt/extra/dummy.ko" ;;
	esac
	vm_copy_bin "$root" "$FLEET_BIN/attest-agent"
	cp -L "$FLEET_BIN/attest-agent" "$root/usr/bin/"
	vm_copy_bin "$root" "$FLEET_BIN/slimctl"
	cp -L "$FLEET_BIN/slimctl" "$root/usr/bin/"
	# data of low integrity (fleet-init labels it UNTRUSTED PUBLIC)
	echo "downloaded from somewhere" >"$root/opt/input/untrusted.txt"
	# the TCTI is dlopen'd: ldd cannot see it
	vm_copy_bin "$root" /usr/lib/x86_64-linux-gnu/libtss2-tcti-device.so.0
	cp "$VM_DIR/guest/fleet-init" "$root/init"
	chmod 755 "$root/init"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
	echo 'attest-agent:x:990:990:attest agent:/nonexistent:/bin/false' >>"$root/etc/passwd"
	printf 'root:x:0:\nattest-agent:x:990:\n' >"$root/etc/group"
	cp "$FLEET_DIR/pki/server-ca.pem" "$root/etc/attest/verifier-ca.pem"
	cat >"$root/etc/attest/agent.conf" <<EOF
# a fleet guest (tests/vm/fleet.sh); id and verifier come as flags
ca = /etc/attest/verifier-ca.pem
enrollment_token_file = /run/attest/token
tcti = device:/dev/tpmrm0
ek = rsa
ak_handle = 0x81010010
log = ima:/sys/kernel/security/ima/binary_runtime_measurements:10
log = slim:/sys/kernel/security/slim/binary_runtime_measurements:11
interval = $FLEET_INTERVAL
state_dir = /var/lib/attest-agent
user = attest-agent
EOF
}

# fleet_whitelist ROOT OUT: the whitelist of everything in the guests'
# root filesystem (IMA's tcb policy measures every file root reads), but
# /opt/extra; the agent's own identity files are excluded
fleet_whitelist() {
	"$FLEET_BIN/attest-whitelist" create --rootfs "$1" --all \
		--skip-path /opt/extra -o "$2.tmp" --no-progress || return 1
	python3 - "$2.tmp" "$2" <<'EOF' || return 1
import json, sys
wl = json.load(open(sys.argv[1]))
# written at enrollment, different on every host
wl.setdefault("excludes", []).append("^/var/lib/attest-agent/")
json.dump(wl, open(sys.argv[2], "w"), indent=1, sort_keys=True)
EOF
	rm -f "$2.tmp"
}

# fleet_verifier_start: PKI and the verifier (SQLite) on 127.0.0.1
# fleet_wait_for TEST PATH TENTHS: waits until `test TEST PATH` holds (at
# most TENTHS tenths of a second); its status says whether it does
fleet_wait_for() {
	i=0
	while ! test "$1" "$2" && [ $i -lt "$3" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	test "$1" "$2"
}

# The verifier's "logs" setting for FLEET_LOGS: ima on PCR 10, slim on 11.
fleet_logs_setting() {
	for l in $FLEET_LOGS; do
		case $l in
		ima) printf 'ima:10,' ;;
		slim) printf 'slim:11,' ;;
		esac
	done | sed 's/,$//'
}

fleet_verifier_start() {
	mkdir -p "$FLEET_DIR/verifier"
	# swtpm-localca makes its CA at its first EK certificate; on a new
	# machine the verifier would start before it exists: make one now
	if [ ! -f "$FLEET_LOCALCA/issuercert.pem" ]; then
		mkdir -p "$FLEET_DIR/ca-init"
		swtpm_setup --tpm2 --tpmstate "$FLEET_DIR/ca-init" --create-ek-cert \
			--overwrite >"$FLEET_DIR/ca-init.log" 2>&1 ||
			{ cat "$FLEET_DIR/ca-init.log" >&2; return 1; }
		rm -rf "$FLEET_DIR/ca-init"
	fi
	PKI_SERVER_SAN=IP:10.0.2.2 "$VM_SRC/deploy/pki.sh" init "$FLEET_DIR/pki" || return 1
	rm -f "$FLEET_DIR/verifier/port"
	"$FLEET_BIN/attest-verifier" --listen 127.0.0.1:0 \
		--port-file "$FLEET_DIR/verifier/port" \
		--tls-cert "$FLEET_DIR/pki/server.pem" \
		--tls-key "$FLEET_DIR/pki/server.key" \
		--admin-ca "$FLEET_DIR/pki/admin-ca.pem" \
		--agent-ca "$FLEET_DIR/pki/agent-ca.pem" \
		--agent-ca-key "$FLEET_DIR/pki/agent-ca.key" \
		--ek-ca-dir "$FLEET_LOCALCA" \
		--database "sqlite:$FLEET_DIR/verifier/verifier.db" \
		--interval "$FLEET_INTERVAL" \
		--logs "$(fleet_logs_setting)" \
		2>"$FLEET_DIR/verifier/verifier.log" &
	echo $! >"$FLEET_DIR/verifier/pid"
	fleet_wait_for -s "$FLEET_DIR/verifier/port" 100 || {
		cat "$FLEET_DIR/verifier/verifier.log" >&2
		return 1
	}
	FLEET_PORT=$(cat "$FLEET_DIR/verifier/port")
	export FLEET_PORT
}

fleet_verifier_stop() {
	[ -f "$FLEET_DIR/verifier/pid" ] || return 0
	kill "$(cat "$FLEET_DIR/verifier/pid")" 2>/dev/null
	rm -f "$FLEET_DIR/verifier/pid"
}

# fleet_krel N: guest N's kernel release (FLEET_KRELS: one per guest, the
# last one repeated; default the 6.1 of VM_KERNELS)
fleet_krel() {
	set -- $1 ${FLEET_KRELS:-$(vm_kernel_release 6.1)}
	n=$1
	shift
	k=$1
	while [ "$n" -gt 1 ] && [ $# -gt 1 ]; do
		shift
		k=$1
		n=$((n - 1))
	done
	echo "$k"
}

# fleet_prepare: for each kernel in FLEET_KRELS, slim.ko, the root
# filesystem and its initramfs (FLEET_DIR/k-KREL/); the whitelist of all
# of them merged, uploaded as "fleet"
fleet_prepare() {
	wls=""
	for krel in ${FLEET_KRELS:-$(vm_kernel_release 6.1)}; do
		k=$FLEET_DIR/k-$krel
		mkdir -p "$k"
		vm_build_module "$krel" "$k/module" || return 1
		fleet_build_root "$k/root" "$krel" "$k/module/slim.ko" || return 1
		fleet_whitelist "$k/root" "$k/whitelist.json" || return 1
		(cd "$k/root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$k/initramfs.cpio.gz" || return 1
		wls="$wls $k/whitelist.json"
	done
	# shellcheck disable=SC2086 # one argument per kernel
	"$FLEET_BIN/attest-whitelist" merge $wls -o "$FLEET_DIR/whitelist.json.tmp" || return 1
	# the lattice policy: slim.ko must enforce; demotions are recorded
	# and shown, not refused (docs/whitelist.md, "lattice")
	python3 - "$FLEET_DIR/whitelist.json.tmp" "$FLEET_DIR/whitelist.json" <<'EOF' || return 1
import json, sys
wl = json.load(open(sys.argv[1]))
wl["lattice"] = {"mode": "enforce", "demotions": "allow"}
json.dump(wl, open(sys.argv[2], "w"), indent=1, sort_keys=True)
EOF
	rm -f "$FLEET_DIR/whitelist.json.tmp"
	fleet_ctl put-whitelist fleet "$FLEET_DIR/whitelist.json" >/dev/null
}

# fleet_guest_start N: boots guest N (first time: a new swtpm with an EK
# certificate, a new state disk and an enrollment token)
fleet_guest_start() {
	n=$1
	d=$FLEET_DIR/g$n
	krel=$(fleet_krel "$n")
	token=""
	mkdir -p "$d/tpm"
	if [ ! -f "$d/state.img" ]; then
		swtpm_setup --tpm2 --tpmstate "$d/tpm" --create-ek-cert \
			--lock-nvram --pcr-banks sha1,sha256 --overwrite \
			>"$d/swtpm_setup.log" 2>&1 || { cat "$d/swtpm_setup.log" >&2; return 1; }
		truncate -s 16M "$d/state.img" && mkfs.ext4 -q -F "$d/state.img" >/dev/null || return 1
		fleet_ctl token 600 >"$d/token.json" || return 1
		token=$(fleet_json_get "$d/token.json" token)
		[ -n "$token" ] || return 1
	fi
	rm -f "$d/tpm.sock" "$d/cmd.sock"
	swtpm socket --tpm2 --tpmstate dir="$d/tpm" \
		--ctrl type=unixio,path="$d/tpm.sock" --terminate \
		--log file="$d/swtpm.log" &
	echo $! >"$d/swtpm.pid"
	fleet_wait_for -S "$d/tpm.sock" 50
	qemu-system-x86_64 -accel tcg -smp 1 -m 512 -nographic -nodefaults \
		-kernel "/boot/vmlinuz-$krel" -initrd "$FLEET_DIR/k-$krel/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 rootfstype=ramfs quiet loglevel=3 ima_policy=tcb attest.id=guest-$n attest.token=$token attest.verifier=https://10.0.2.2:$FLEET_PORT" \
		-chardev socket,id=chrtpm,path="$d/tpm.sock" \
		-tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
		-drive file="$d/state.img",if=virtio,format=raw \
		-netdev user,id=n0 -device virtio-net-pci,netdev=n0 \
		-serial file:"$d/console.log" \
		-chardev socket,id=cmd,path="$d/cmd.sock",server=on,wait=off \
		-serial chardev:cmd -monitor none -display none \
		>"$d/qemu.log" 2>&1 &
	echo $! >"$d/qemu.pid"
}

# fleet_wait_console N PATTERN TIMEOUT: until guest N's console shows it
fleet_wait_console() {
	d=$FLEET_DIR/g$1
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		tr -d '\r' <"$d/console.log" 2>/dev/null | grep -q -- "$2" && return 0
		kill -0 "$(cat "$d/qemu.pid")" 2>/dev/null || return 1
		sleep 1
	done
	return 1
}

# fleet_cmd N COMMAND: one line on guest N's command channel; the
# connection stays open until the guest acknowledges it on its console
# (qemu drops what the UART has not taken when the client leaves)
fleet_cmd() {
	python3 - "$FLEET_DIR/g$1" "$2" <<'EOF'
import os, socket, sys, time
d, cmd = sys.argv[1], sys.argv[2]
ack = {"reboot": "@@FLEET rebooting", "poweroff": "@@FLEET powering off"}
mark = ack.get(cmd, "@@FLEET done " + cmd).encode()
def seen():
    try:
        return open(os.path.join(d, "console.log"), "rb").read().count(mark)
    except OSError:
        return 0
before = seen()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.path.join(d, "cmd.sock"))
s.sendall((cmd + "\n").encode())
end = time.time() + 60
while seen() == before and time.time() < end:
    time.sleep(0.2)
s.close()
sys.exit(0 if seen() > before else 1)
EOF
}

# fleet_state N: guest N's state as the verifier reports it ("" if unknown)
fleet_state() {
	fleet_ctl agent "guest-$1" >"$FLEET_DIR/g$1/agent.json" 2>/dev/null || {
		echo ""
		return 0
	}
	fleet_json_get "$FLEET_DIR/g$1/agent.json" state
}

# fleet_wait_state N STATE TIMEOUT: until the verifier says so
fleet_wait_state() {
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		[ "$(fleet_state "$1")" = "$2" ] && return 0
		sleep 2
	done
	return 1
}

# fleet_wait_enrolled N TIMEOUT, then assign the whitelist
fleet_enrolled_assign() {
	end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt "$end" ]; do
		if fleet_ctl agent "guest-$1" >/dev/null 2>&1; then
			fleet_ctl assign "guest-$1" fleet >/dev/null
			return $?
		fi
		sleep 2
	done
	return 1
}

# fleet_end PIDFILE SECONDS: waits that long for the process to exit, then
# kills it; removes the pid file
fleet_end() {
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt "$2" ]; do
		sleep 1
		i=$((i + 1))
	done
	kill "$pid" 2>/dev/null
	rm -f "$1"
}

# fleet_guest_stop N: power off (or kill after 60 s); its swtpm ends with
# qemu (--terminate), or is killed when qemu never started
fleet_guest_stop() {
	d=$FLEET_DIR/g$1
	[ -f "$d/qemu.pid" ] && fleet_cmd "$1" poweroff 2>/dev/null
	fleet_end "$d/qemu.pid" 60
	fleet_end "$d/swtpm.pid" 5
}
