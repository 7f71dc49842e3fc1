#!/bin/sh
# deb-enforce-test.sh O - slim.ko in enforce mode on a real Debian 12 host
# (issue 37), as a test of `make check`. The guest is tests/vm/debian.sh's
# (mmdebstrap minbase + systemd, sshd, cron, python3; its tarball cached),
# with slim.ko of each kernel of VM_KERNELS, deploy/slim's modules-load.d
# and modprobe.d (mode=enforce: loaded by systemd-modules-load, no
# initramfs), and every file and directory labeled offline on the host with
# `slimctl label --root STAGE --offline deploy/slim/debian.policy` plus
# deploy/slim/attest-agent.policy and two lines for the test daemon (its
# script and its state UNTRUSTED PUBLIC).
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
# The same guests run attest-agent, installed in the image before the first
# boot with apt from the project's package (mk/deb.sh, as `make deb`; apt
# pulls its libraries from the archive) and configured over ssh as the
# README says, against a real attest-verifier on this host (tests/vm/
# fleet.sh: PKI, SQLite, HTTPS; lists ima on PCR 10 and slim on PCR 11).
# Its whitelist is made from the guest's own root file system (attest-
# whitelist create --rootfs of the labeled tree the image is made from),
# the shipped Debian baseline and the files the test writes at run time,
# with a lattice section: mode enforce, demotions denied but the test
# daemon's, accepted by the file that demotes it. Judged through the
# verifier's API (attestctl): against the same whitelist without that
# acceptance the host is untrusted and the reason names the daemon's
# demotion (the control); with it the host is trusted, in enforce mode,
# and the daemon's demotion is in its lattice records.
# Prints PASS/FAIL lines and "enforce: N passed, N failed".
set -u
O=$(cd "${1:?usage: deb-enforce-test.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/fleet.sh"
. "$VM_SRC/tests/vm/debian.sh"
D=$O/vm/deb-enforce
SLIMCTL=${SLIMCTL:-$O/rel/bin/slimctl}
W=$O/rel/bin/attest-whitelist
CUR=$(cat "$VM_SRC/VERSION")
FLEET_DIR=$D/verifier-host
FLEET_BIN=$O/rel/bin
FLEET_LOGS="ima slim"
FLEET_INTERVAL=5
export FLEET_DIR FLEET_BIN FLEET_LOGS FLEET_INTERVAL
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
	fleet_verifier_stop
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

# 2b. the project's Debian packages (debian.sh's deb_packages: mk/deb.sh,
# unless they are newer than their sources; it keeps its build tree in
# O/deb: `make check`'s deb suite built the same version a moment ago)
s=$(date +%s)
AGENT_DEB=$O/deb/$CUR/attest-agent_${CUR}_amd64.deb
if deb_packages "$VM_SRC" "$O" >"$D/deb.log" 2>&1 && [ -f "$AGENT_DEB" ]; then
	ok packages
	note "packages $CUR in $(($(date +%s) - s))s ($(grep -q 'not built again' "$D/deb.log" && echo 'up to date' || echo 'mk/deb.sh'))"
else
	ko packages "mk/deb.sh failed" "$D/deb.log"
	finish
fi

# 2c. the verifier on this host; for each guest an enrollment token and the
# files its administrator writes in /etc/attest (site-TAG/, put in the guest
# over ssh after boot; the whitelist lists them: root reads them)
if ! fleet_verifier_start; then
	ko verifier "the verifier did not start" "$FLEET_DIR/verifier/verifier.log"
	finish
fi
mkdir -p "$D/pkg-agent"
dpkg-deb -x "$AGENT_DEB" "$D/pkg-agent"
site_ok=1
for kv in $VM_KERNELS; do
	tag=${kv%%:*}
	sd=$D/site-$tag/etc/attest
	mkdir -p "$sd"
	fleet_ctl token 600 >"$D/token-$tag.json" 2>>"$D/site.log" &&
		printf '%s\n' "$(fleet_json_get "$D/token-$tag.json" token)" >"$sd/enrollment-token" &&
		[ "$(wc -c <"$sd/enrollment-token")" -gt 8 ] &&
		cp "$FLEET_DIR/pki/server-ca.pem" "$sd/verifier-ca.pem" &&
		sed -e "s|^verifier = .*|verifier = https://10.0.2.2:$FLEET_PORT|" \
			-e "s|^#agent_id = .*|agent_id = debian-$tag|" \
			-e "s|^interval = .*|interval = $FLEET_INTERVAL|" \
			-e 's|^#\(log = slim:.*\)|\1|' \
			"$D/pkg-agent/etc/attest/agent.conf" >"$sd/agent.conf" &&
		grep -q "^agent_id = debian-$tag$" "$sd/agent.conf" &&
		grep -q '^log = slim:' "$sd/agent.conf" || site_ok=0
done
if [ $site_ok = 1 ]; then
	ok verifier
else
	ko verifier "cannot make the agents' tokens or configuration" "$D/site.log"
	finish
fi

# 3. the image: slim.ko, its boot files, the daemon, the repository's key
# and source, every file and directory labeled offline
# DEB_ENFORCE_POLICY: another labeling policy instead of deploy/slim's (to
# see what fails without a rule; not a way to pass)
POLICY=$D/policy
# deploy/slim/attest-agent.policy: the agent's rule (the guests run it);
# DEB_ENFORCE_AGENT_POLICY: another file instead (e.g. /dev/null, to see
# what fails without the agent's guard; not a way to pass)
cat "${DEB_ENFORCE_POLICY:-$VM_SRC/deploy/slim/debian.policy}" \
	"${DEB_ENFORCE_AGENT_POLICY:-$VM_SRC/deploy/slim/attest-agent.policy}" - >"$POLICY" <<'EOF'
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
		agent_install "$st" &&
		"$SLIMCTL" label --root "$st" --offline "$POLICY" &&
		"$W" create --rootfs "$st" --no-progress -o "$D/wl-rootfs.json"
}
# agent_install STAGE: `apt install ./attest-agent_*.deb` in the staged tree
# (debian.sh's deb_stage_apt: in a chroot before the first boot, as the
# labels are applied; apt pulls the TPM libraries from the archive)
agent_install() {
	deb_stage_apt "$1" "" "$AGENT_DEB" &&
		[ -x "$1/usr/bin/attest-agent" ] &&
		[ -L "$1/etc/systemd/system/multi-user.target.wants/attest-agent.service" ] &&
		grep -q '^attest-agent:' "$1/etc/passwd"
}
s=$(date +%s)
if DEB_STAGE_HOOK=enforce_stage deb_image "$O/vm/debian" "$O/vm/debian/enforce.img" >"$D/image.log" 2>&1; then
	ok image
	note "image labeled in $(($(date +%s) - s))s: $(grep -o 'labeled [0-9]* files' "$D/image.log")"
else
	ko image "cannot build the labeled image" "$D/image.log"
	finish
fi

# 3b. the guests' whitelist: their root file system as the image has it,
# the Debian baseline (state that changes every boot), the files written
# in /etc/attest over ssh, the agent's identity excluded (written at
# enrollment, as in tests/vm/fleet.sh). Its lattice section: enforce, no
# relabel, no demotion of a SYSTEM task but the daemon's, accepted by the
# file that demotes it; "deb-enforce-TAG-strict" is the same without that
# acceptance. No allowance: no refused record (the daemon's probes of
# /etc come after both judgments) and no violation. Until 4582dbe the
# demoted python3 made refused records for TCGETS (isatty() on every .pyc)
# and 6.12 measured systemd's pidfds (open-writers violations);
# DEB_ENFORCE_VIOLATIONS="6.12" allows violations on the kernels named
# (to see what else fails; not a way to pass).
DEB_ENFORCE_VIOLATIONS=${DEB_ENFORCE_VIOLATIONS-}
for kv in $VM_KERNELS; do
	echo "$D/site-${kv%%:*}"
done >"$D/site.dirs"
wl_ok=1
for sdir in $(cat "$D/site.dirs"); do
	"$W" create --rootfs "$sdir" --no-progress -o "$sdir.json" 2>>"$D/whitelist.log" || wl_ok=0
done
# shellcheck disable=SC2046 # one whitelist an argument
[ $wl_ok = 1 ] && "$W" merge "$D/wl-rootfs.json" "$VM_SRC/deploy/whitelist/debian-baseline.json" \
	$(sed 's/$/.json/' "$D/site.dirs") -o "$D/wl-merged.json" 2>>"$D/whitelist.log" &&
	python3 - "$D/wl-merged.json" "$D" "$DEB_ENFORCE_VIOLATIONS" $(sed 's|.*/site-||' "$D/site.dirs") \
		<<'PYEOF' >>"$D/whitelist.log" 2>&1 || wl_ok=0
import json, sys
wl = json.load(open(sys.argv[1]))
d, allow, tags = sys.argv[2], sys.argv[3].split(), sys.argv[4:]
wl.setdefault("excludes", []).append("^/var/lib/attest-agent/")
lat = {"mode": "enforce", "demotions": "deny", "relabels": False,
       "refusals": False}
for tag in tags:
    wl["attest"] = {"violations": "allow" if tag in allow else "fail"}
    wl["lattice"] = dict(lat, acceptable_demotions=[
        {"path": "/usr/local/sbin/slim-testd", "cause": "file"}])
    json.dump(wl, open(d + "/wl-" + tag + ".json", "w"), indent=1, sort_keys=True)
    wl["lattice"] = lat
    json.dump(wl, open(d + "/wl-" + tag + "-strict.json", "w"), indent=1, sort_keys=True)
PYEOF
for kv in $VM_KERNELS; do
	tag=${kv%%:*}
	[ $wl_ok = 1 ] && fleet_ctl put-whitelist "deb-enforce-$tag" "$D/wl-$tag.json" >>"$D/whitelist.log" 2>&1 &&
		fleet_ctl put-whitelist "deb-enforce-$tag-strict" "$D/wl-$tag-strict.json" >>"$D/whitelist.log" 2>&1 ||
		wl_ok=0
done
if [ $wl_ok = 1 ]; then
	ok whitelist
	note "whitelist: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["digests"]))' "$D/wl-merged.json") paths"
else
	ko whitelist "cannot make or upload the guests' whitelist" "$D/whitelist.log" "$D/image.log"
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

# agent_py TAG CODE: Python over the verifier's view of guest TAG's agent
# (a: GET /v1/agents/{id}, r: its last result, l: r's lattice state;
# sys.argv[2]: its id, sys.argv[3]: the name of its whitelist);
# agent_ok TAG EXPR: whether EXPR holds; agent_wait TAG EXPR SECONDS
agent_py() {
	fleet_ctl agent "debian-$1" >"$D/$1.agent.json" 2>/dev/null || echo '{}' >"$D/$1.agent.json"
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
r = a.get("last_result") or {}
l = r.get("lattice") or {}
'"$2" "$D/$1.agent.json" "debian-$1" "deb-enforce-$1"
}
agent_ok() { agent_py "$1" "sys.exit(0 if ($2) else 1)" 2>/dev/null; }
agent_wait() {
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		agent_ok "$1" "$2" && return 0
		sleep 2
	done
	return 1
}
agent_reasons() { agent_py "$1" 'print("\n".join(r.get("reasons", [])) or a.get("state", "no agent"))'; }

check_guest() {
	tag=$1
	G=$D/$tag
	s=$(date +%s)
	if ! deb_wait_ssh "$G" "$BOOT_TIMEOUT"; then
		ko "${tag}_boot" "no ssh in ${BOOT_TIMEOUT}s" "$G/console.log"
		return 1
	fi
	# the agent, configured as the README says (CA, token, verifier, and
	# here its id and the slim list), started by systemd; it enrolls while
	# the checks below run
	sd=$D/site-$tag/etc/attest
	deb_put "$G" "$sd/agent.conf" "$sd/verifier-ca.pem" "$sd/enrollment-token" /etc/attest/ &&
		g "$tag" 'chmod 600 /etc/attest/enrollment-token && systemctl restart attest-agent'
	sa=$(date +%s)
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

	# attestation, before anything below demotes a task of the ssh session:
	# the control first (the strict whitelist refuses the daemon's
	# demotion, by name), then the whitelist that accepts it (the verifier
	# judges again from the last trusted state: from the list's start)
	id=debian-$tag
	if agent_wait "$tag" 'a.get("id") == sys.argv[2] and (a.get("enrolled_at") or 0) > 0' 300 &&
		fleet_ctl assign "$id" "deb-enforce-$tag-strict" >"$D/$tag.assign" 2>&1; then
		ok "${tag}_agent_enrolled"
		note "$tag: agent enrolled $(($(date +%s) - sa))s after systemctl restart"
	else
		g "$tag" 'systemctl status attest-agent --no-pager; journalctl -u attest-agent --no-pager | tail -n 30'
		ko "${tag}_agent_enrolled" "the agent did not enroll" "$D/$tag.out" "$FLEET_DIR/verifier/verifier.log"
	fi
	if agent_wait "$tag" 'a.get("state") == "untrusted" and (r.get("whitelist") or {}).get("name") == sys.argv[3] + "-strict" and any("SYSTEM task demoted" in x and "/usr/local/sbin/slim-testd" in x for x in r["reasons"]) and all("SYSTEM task demoted" in x for x in r["reasons"])' 180; then
		ok "${tag}_strict_refuses_demotion"
		note "$tag: strict: $(agent_reasons "$tag" | head -n 1 | cut -c1-160)"
	else
		ko "${tag}_strict_refuses_demotion" "not untrusted for the daemon's demotion alone: $(agent_reasons "$tag" | head -n 20 | tr '\n' ';')" "$D/$tag.agent.json"
	fi
	fleet_ctl assign "$id" "deb-enforce-$tag" >"$D/$tag.assign" 2>&1
	if agent_wait "$tag" 'a.get("state") == "trusted" and (r.get("whitelist") or {}).get("name") == sys.argv[3] and l.get("mode") == "enforce" and any(d.get("cause") == "file" and d.get("path") == "/usr/local/sbin/slim-testd" and d.get("from", "").startswith("SYSTEM") and d.get("to", "").startswith("UNTRUSTED") for d in l.get("recent_demotions", []))' 180; then
		ok "${tag}_attested_trusted"
		note "$tag: trusted, $(agent_py "$tag" 'print("%d demotions, recent: %s" % (l["demotions"], "; ".join("%s %s %s %s" % (d["comm"], d["exe"], d["cause"], d.get("path", "")) for d in l["recent_demotions"])))')"
	else
		g "$tag" 'for p in /proc/[0-9]*; do ls -l $p/fd 2>/dev/null | grep -q "/tmp/#" && echo "tmpfile held by $p $(cat $p/comm)"; done; tail -n 40 /sys/kernel/security/slim/ascii_runtime_measurements | cut -c 1-12,50-'
		ko "${tag}_attested_trusted" "not trusted with the daemon's demotion accepted: $(agent_reasons "$tag" | head -n 20 | tr '\n' ';')" "$D/$tag.out"
	fi

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
	# what slim.ko measured in this boot, kept for reading (the agent's
	# list; the verifier's last result is in TAG.agent.json)
	gv "$tag" 'cat /sys/kernel/security/slim/ascii_runtime_measurements' >"$D/$tag.slim-list"
	grep -q '/tmp/#' "$D/$tag.slim-list" &&
		note "$tag: anonymous temporary files measured (entry: the paths before and after it): $(awk '{ p[NR] = $5 } END { for (i = 1; i <= NR; i++) if (p[i] ~ /^\/tmp\/#/) printf "%d: %s %s [%s] %s %s; ", i - 1, p[i-2], p[i-1], p[i], p[i+1], p[i+2] }' "$D/$tag.slim-list")"
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
