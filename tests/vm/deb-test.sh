#!/bin/sh
# deb-test.sh O - the Debian packages on a real Debian 12 host, as a test of
# `make check`: `make deb`'s packages (mk/deb.sh, two versions: the tree's
# and an older one, VERSION~prev1) installed with apt in a real Debian 12
# guest (tests/vm/debian.sh: mmdebstrap minbase + systemd, the stock 6.1
# kernel, swtpm with an EK certificate, no TPM userspace preinstalled),
# attested by a real attest-verifier on this host (tests/vm/fleet.sh: PKI,
# SQLite, HTTPS). Judged in the guest over ssh and through the verifier:
#   apt pulls the TPM libraries from the guest's apt sources (the archive
#   the host uses, reached through qemu's user network) by the package's
#   Depends; the unit is enabled and waits for the CA; systemd starts the
#   agent, which opens /dev/tpmrm0 (tss:tss 0660) through the tss group,
#   enrolls with a token, drops to attest-agent and is trusted; an upgrade
#   from the older package restarts it without enrolling again (same
#   identity files, same enrolled_at) and it stays trusted; apt remove
#   leaves the configuration and the identity, apt purge removes them and
#   leaves only the administrator's files and the system user.
# Prints PASS/FAIL lines and "deb: N passed, N failed".
set -u
O=$(cd "${1:?usage: deb-test.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/fleet.sh"
. "$VM_SRC/tests/vm/debian.sh"
D=$O/vm/deb
FLEET_DIR=$D
FLEET_BIN=$O/rel/bin
FLEET_LOGS=ima
FLEET_INTERVAL=5
export FLEET_DIR FLEET_BIN FLEET_LOGS FLEET_INTERVAL
G=$D/g1
KREL=${DEB_KREL:-$(vm_kernel_release 6.1)}
CUR=$(cat "$VM_SRC/VERSION")
PREV=$CUR~prev1
BOOT_TIMEOUT=${DEB_BOOT_TIMEOUT:-900}
pass=0
failn=0
VM_TEST_PREFIX=vm/deb

finish() {
	deb_stop "$G" >/dev/null 2>&1
	fleet_verifier_stop
	echo "deb: $pass passed, $failn failed"
	[ "$failn" = 0 ]
	exit $?
}
t0=$(date +%s)
el() { echo "$(($(date +%s) - t0))s"; }
note() { echo "     [$(el)] $*"; }
# g CMD: in the guest, its output in $D/out (shown by ko with $D/out)
g() { deb_ssh "$G" "$@" >"$D/out" 2>&1; }
# gv CMD: one value from the guest
gv() { deb_ssh "$G" "$@" 2>/dev/null | tr -d '\r'; }
# agent_field KEY: the verifier's view of guest-1
agent_field() {
	fleet_ctl agent guest-1 >"$D/agent.json" 2>/dev/null || { echo ""; return 0; }
	fleet_json_get "$D/agent.json" "$@"
}

rm -rf "$D"
mkdir -p "$D"

# 1. the packages, two versions
if "$VM_SRC/mk/deb.sh" "$VM_SRC" "$O/deb" "$PREV" >"$D/deb-prev.log" 2>&1 &&
	"$VM_SRC/mk/deb.sh" "$VM_SRC" "$O/deb" >"$D/deb-cur.log" 2>&1; then
	ok packages
	note "built $CUR and $PREV in $O/deb; lintian: $(grep -c . "$O/deb/$CUR/lintian.txt") lines"
else
	ko packages "make deb failed" "$D/deb-prev.log" "$D/deb-cur.log"
	finish
fi
debs() { ls "$O/deb/$1/attest-agent_$1_"*.deb "$O/deb/$1/attest-tools_$1_"*.deb; }

# 2. the guest's image (the mmdebstrap tarball is cached in O/vm/debian)
s=$(date +%s)
if deb_image "$O/vm/debian" "$O/vm/debian/base.img" >"$D/image.log" 2>&1; then
	ok image
	note "image in $(($(date +%s) - s))s ($(grep -o 'cached root filesystem\|mmdebstrap bookworm' "$D/image.log" | head -n 1))"
else
	ko image "cannot build the Debian guest image" "$D/image.log" "$O/vm/debian/mmdebstrap.log"
	finish
fi

# 3. the verifier on this host, and the whitelist: the agent package's files
if ! fleet_verifier_start; then
	ko verifier "the verifier did not start" "$D/verifier/verifier.log"
	finish
fi
mkdir -p "$D/pkgroot"
dpkg-deb -x "$(debs "$CUR" | head -n 1)" "$D/pkgroot"
if fleet_whitelist "$D/pkgroot" "$D/whitelist.json" >"$D/whitelist.log" 2>&1 &&
	fleet_ctl put-whitelist fleet "$D/whitelist.json" >>"$D/whitelist.log" 2>&1; then
	ok verifier
else
	ko verifier "cannot make or upload the whitelist" "$D/whitelist.log"
	finish
fi

# 4. boot
s=$(date +%s)
if deb_boot "$G" "$KREL" "$O/vm/debian/base.img" && deb_wait_ssh "$G" "$BOOT_TIMEOUT"; then
	ok boot
	note "Debian 12 on $KREL: ssh after $(($(date +%s) - s))s"
else
	ko boot "the guest did not boot to ssh in ${BOOT_TIMEOUT}s" "$G/console.log" "$G/qemu.log"
	finish
fi
if g "dpkg-query -W -f='\${Status}\n' libtss2-esys-3.0.2-0 tpm-udev 2>&1 | grep -q 'install ok installed'"; then
	ko no_tpm_userspace "the image already has TPM userspace" "$D/out"
else
	ok no_tpm_userspace
fi

# 5. apt installs the older packages and pulls what they depend on
deb_put "$G" $(debs "$PREV") /root/ || { ko install_prev "cannot copy the packages"; finish; }
s=$(date +%s)
if g "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	./attest-agent_${PREV}_amd64.deb ./attest-tools_${PREV}_amd64.deb" &&
	g "dpkg-query -W -f='\${Package} \${Version} \${Status}\n' attest-agent libtss2-esys-3.0.2-0 libtss2-tcti-device0 libcurl4 libjson-c5 tpm-udev >/root/q; cat /root/q; [ \$(grep -c 'install ok installed' /root/q) = 6 ] && grep -q 'attest-agent $PREV ' /root/q"; then
	ok install_prev
	note "apt install of $PREV (and its dependencies from the archive) in $(($(date +%s) - s))s: $(gv "grep -c . /var/log/apt/history.log >/dev/null; sed -n 's/^Install: //p' /var/log/apt/history.log | tr ',' '\n' | grep -c amd64") packages"
else
	ko install_prev "apt could not install attest-agent $PREV" "$D/out"
	finish
fi
if g "[ -x /usr/bin/attest-agent ] && [ -x /usr/bin/attest-whitelist ] && [ -x /usr/bin/slimctl ] &&
	/usr/bin/attest-agent --version && slimctl --version && getent passwd attest-agent &&
	[ \$(systemctl is-enabled attest-agent) = enabled ] &&
	dpkg-query -W -f='\${Conffiles}\n' attest-agent | grep -q '/etc/attest/agent.conf ' &&
	[ \"\$(stat -c '%U:%G %a' /dev/tpmrm0)\" = 'tss:tss 660' ]"; then
	ok installed_files
else
	ko installed_files "binary, user, unit, conffile or /dev/tpmrm0 owner not as expected" "$D/out"
fi
# the unit waits for the CA: not started, not failed
if [ "$(gv 'systemctl is-active attest-agent')" = inactive ] &&
	[ "$(gv 'systemctl show -p ConditionResult --value attest-agent')" = no ]; then
	ok waits_for_ca
else
	g "systemctl status attest-agent"
	ko waits_for_ca "the unconfigured agent is not waiting for its CA" "$D/out"
fi

# 6. configured as docs say, started by systemd: enrolls, trusted
fleet_ctl token 600 >"$D/token.json" && token=$(fleet_json_get "$D/token.json" token)
printf '%s\n' "${token:-}" >"$D/token"
deb_put "$G" "$D/pki/server-ca.pem" /etc/attest/verifier-ca.pem &&
	deb_put "$G" "$D/token" /etc/attest/enrollment-token &&
	g "chmod 600 /etc/attest/enrollment-token &&
	sed -i -e 's|^verifier = .*|verifier = https://10.0.2.2:$FLEET_PORT|' \
		-e 's|^#agent_id = .*|agent_id = guest-1|' -e 's|^interval = .*|interval = $FLEET_INTERVAL|' \
		/etc/attest/agent.conf && systemctl restart attest-agent"
s=$(date +%s)
if fleet_enrolled_assign 1 300; then
	ok enroll
	note "enrolled $(($(date +%s) - s))s after systemctl restart"
else
	g "systemctl status attest-agent; journalctl -u attest-agent --no-pager | tail -n 30"
	ko enroll "the agent did not enroll" "$D/out" "$D/verifier/verifier.log"
	finish
fi
if fleet_wait_state 1 trusted 300; then
	ok trusted
else
	ko trusted "guest-1 is $(fleet_state 1): $(agent_field last_result reasons)" "$D/agent.json"
fi
pid1=$(gv 'systemctl show -p MainPID --value attest-agent')
# its real, effective, saved and file-system ids are attest-agent's, and it
# has no supplementary group left (tss was for the open only)
if [ -n "$pid1" ] && [ "$pid1" != 0 ] &&
	g "id -u attest-agent; id -g attest-agent; grep -E '^(Uid|Gid|Groups):' /proc/$pid1/status" &&
	tr -d '\r' <"$D/out" | awk 'NR == 1 { u = $1 } NR == 2 { gid = $1 }
		/^Uid:/ { ok += ($2 == u && $3 == u && $4 == u && $5 == u) }
		/^Gid:/ { ok += ($2 == gid && $3 == gid && $4 == gid && $5 == gid) }
		/^Groups:/ { ok += (NF == 1) }
		END { exit !(ok == 3 && u > 0) }'; then
	ok runs_as_attest_agent
else
	ko runs_as_attest_agent "the agent (pid $pid1) is not attest-agent without groups" "$D/out"
fi
g "systemd-analyze security attest-agent.service --no-pager" &&
	note "$(tr -d '\r' <"$D/out" | grep 'Overall exposure')"

# 7. upgrade to the tree's version: restarted, same identity, still trusted
enrolled=$(agent_field enrolled_at)
last=$(agent_field last_attestation)
ids=$(gv 'cd /var/lib/attest-agent && sha256sum $(ls | grep -v -e reset_count) | sort')
since=$(gv 'date +%s')
deb_put "$G" $(debs "$CUR") /root/ &&
	g "DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./attest-agent_${CUR}_amd64.deb ./attest-tools_${CUR}_amd64.deb"
pid2=$(gv 'systemctl show -p MainPID --value attest-agent')
if [ "$(gv "dpkg-query -W -f='\${Version}' attest-agent")" = "$CUR" ] &&
	[ -n "$pid2" ] && [ "$pid2" != 0 ] && [ "$pid2" != "$pid1" ] &&
	[ "$(gv 'systemctl is-active attest-agent')" = active ]; then
	ok upgrade_restarts
else
	ko upgrade_restarts "version $(gv "dpkg-query -W -f='\${Version}' attest-agent"), pid $pid1 -> $pid2" "$D/out"
fi
s=$(date +%s)
while [ "$(agent_field last_attestation)" = "$last" ] && [ $(($(date +%s) - s)) -lt 120 ]; do
	sleep 2
done
if [ "$(agent_field last_attestation)" != "$last" ] && fleet_wait_state 1 trusted 60 &&
	[ "$(agent_field enrolled_at)" = "$enrolled" ] && [ -n "$enrolled" ] &&
	[ -n "$ids" ] &&
	[ "$(gv 'cd /var/lib/attest-agent && sha256sum $(ls | grep -v -e reset_count) | sort')" = "$ids" ] &&
	g "journalctl -u attest-agent --since @$since --no-pager" && ! grep -q 'enroll:' "$D/out" &&
	grep -q 'round ' "$D/out"; then
	ok upgrade_keeps_enrollment
else
	ko upgrade_keeps_enrollment "after the upgrade: $(fleet_state 1), enrolled_at $enrolled -> $(agent_field enrolled_at)" "$D/out"
fi

# 8. apt remove: program and unit gone, configuration and identity kept
g "DEBIAN_FRONTEND=noninteractive apt-get remove -y -q attest-agent"
if g "! [ -e /usr/bin/attest-agent ] && ! [ -e /lib/systemd/system/attest-agent.service ] &&
	! pgrep -x attest-agent && [ -f /etc/attest/agent.conf ] && [ -d /var/lib/attest-agent ] &&
	[ -n \"\$(ls /var/lib/attest-agent)\" ] && getent passwd attest-agent &&
	dpkg-query -W -f='\${Status}\n' attest-agent | grep -q 'deinstall ok config-files'"; then
	ok remove_keeps_config
else
	ko remove_keeps_config "apt remove left the wrong things" "$D/out"
fi
g "find /etc/attest /var/lib/attest-agent /etc/systemd /lib/systemd /usr/lib/sysusers.d -name '*attest*' | sort" &&
	note "after remove: $(tr -d '\r' <"$D/out" | tr '\n' ' ')"

# 9. apt purge: only the administrator's files and the system user remain
g "DEBIAN_FRONTEND=noninteractive apt-get purge -y -q attest-agent"
g "find /etc/attest /var/lib/attest-agent /etc/systemd /lib/systemd /usr/lib/sysusers.d -name '*attest*' 2>/dev/null | sort; ls /etc/attest"
note "after purge: $(tr -d '\r' <"$D/out" | tr '\n' ' ')"
if g "! [ -e /var/lib/attest-agent ] && ! [ -e /etc/attest/agent.conf ] &&
	[ \"\$(ls /etc/attest | tr '\n' ' ')\" = 'enrollment-token verifier-ca.pem ' ] &&
	[ -z \"\$(find /etc/systemd /lib/systemd /usr/lib/sysusers.d -name 'attest-agent*')\" ] &&
	! dpkg-query -W -f='\${Status}\n' attest-agent 2>/dev/null | grep -q -e 'ok installed' -e 'config-files' &&
	getent passwd attest-agent"; then
	ok purge_leaves_nothing
else
	ko purge_leaves_nothing "apt purge left or removed the wrong things" "$D/out"
fi
finish
