#!/bin/sh
# wl-layers-test.sh O - Debian whitelists in layers on a real Debian 12 guest
# (tests/vm/debian.sh: mmdebstrap minbase + systemd, the stock 6.1 kernel
# booted with ima_policy=tcb), judged by a real attest-verifier on this host
# (tests/vm/fleet.sh) through POST /v1/check (attestctl explain: the
# guest's binary IMA list against a layered whitelist) and through the
# guest's own attest-agent (the project's .deb, installed with apt in the
# image before its first boot): the verifier judges its quoted IMA list by
# the same layers.
#   The layers, made only from the guest's packages and the documented
#   residue (deploy/whitelist/debian-baseline.md): debian (create
#   --dpkg-root of the image's dpkg status, the .debs from this host's apt
#   archive or apt-get download), initramfs (--initrd), derived (--rootfs
#   of the image, debian-derived.re), site (the image's own configuration),
#   baseline (debian-baseline.json), local (--apt-repo of a local
#   repository signed with a throwaway gpg key).
#   The guest boots trusted; installs attest-demo 1.0 from the repository
#   and runs it: trusted; 1.1 (with a postinst) is published, the local
#   layer regenerated and uploaded; apt-get install upgrades it: trusted
#   after the upgrade (the postinst measured, allowed by the local layer)
#   and on running the new binary, while the layers with the old local
#   layer refuse it naming /usr/bin/attest-demo and the postinst; a binary from no package makes
#   it untrusted, naming the file. At boot, after the upgrade and after
#   the stray binary, the agent's quote says the same (trusted, trusted,
#   untrusted naming the file).
# Prints PASS/FAIL lines and "layers: N passed, N failed" (make check: suite
# layers).
set -u
O=$(cd "${1:?usage: wl-layers-test.sh O}" && pwd)
VM_SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$VM_SRC/tests/vm/lib.sh"
. "$VM_SRC/tests/vm/fleet.sh"
. "$VM_SRC/tests/vm/debian.sh"
D=$O/vm/wl-layers
FLEET_DIR=$D
FLEET_BIN=$O/rel/bin
FLEET_LOGS=ima
FLEET_INTERVAL=5
export FLEET_DIR FLEET_BIN FLEET_LOGS FLEET_INTERVAL
W=$O/rel/bin/attest-whitelist
G=$D/g
KREL=${DEB_KREL:-$(vm_kernel_release 6.1)}
BOOT_TIMEOUT=${DEB_BOOT_TIMEOUT:-900}
DEBS=$O/vm/wl-layers-debs # the guest's .debs, kept between runs
CUR=$(cat "$VM_SRC/VERSION")
AGENT_DEB=$O/deb/$CUR/attest-agent_${CUR}_amd64.deb
pass=0
failn=0
VM_TEST_PREFIX=vm/wl-layers

finish() {
	deb_stop "$G" >/dev/null 2>&1
	fleet_verifier_stop
	[ -f "$D/http.pid" ] && kill "$(cat "$D/http.pid")" 2>/dev/null
	note "done in $(($(date +%s) - t0)) s"
	echo "layers: $pass passed, $failn failed"
	[ "$failn" = 0 ]
	exit $?
}
t0=$(date +%s)
note() { echo "     [$(($(date +%s) - t0))s] $*"; }
g() { deb_ssh "$G" "$@" >"$D/out" 2>&1; }

# judge NAME FILE: the guest's binary IMA list now, explained by layered
# whitelist NAME on the verifier; 0 when it passes (lines in FILE)
judge() {
	deb_ssh "$G" 'cat /sys/kernel/security/ima/binary_runtime_measurements' >"$D/list.bin" 2>/dev/null &&
		fleet_ctl explain "$1" "$D/list.bin" >"$2" 2>&1
}
# fails FILE: the failing entries of an explain
fails() { grep -v -e ' allowed ' -e ' excluded ' -e ' unchecked ' -e ' boot-aggregate-ok ' -e '^layer ' -e '^verdict' "$1"; }

rm -rf "$D"
mkdir -p "$D" "$DEBS"
deb_stage_apt_agent() { deb_stage_apt "$1" "$DEBS" "$AGENT_DEB"; }

# agent_state FIELD...: the verifier's view of the guest's agent
agent_state() {
	fleet_ctl agent wl-layers >"$D/agent.json" 2>/dev/null || { echo ""; return 0; }
	fleet_json_get "$D/agent.json" "$@"
}
# agent_after T STATE SECONDS: until the agent has attested after time T
# (seconds, this host's clock) and is in STATE
agent_after() {
	end=$(($(date +%s) + $3))
	while [ "$(date +%s)" -lt "$end" ]; do
		la=$(agent_state last_attestation)
		[ -n "$la" ] && [ "$la" -gt "$1" ] && [ "$(agent_state state)" = "$2" ] && return 0
		sleep 2
	done
	return 1
}
agent_reasons() { python3 -c 'import json, sys; print(";".join((json.load(open(sys.argv[1])).get("last_result") or {}).get("reasons", [])))' "$D/agent.json" 2>/dev/null; }

# 0. the project's packages (debian.sh's deb_packages: mk/deb.sh unless they
# are newer than their sources; make check's deb suite built them)
s=$(date +%s)
if deb_packages "$VM_SRC" "$O" >"$D/deb.log" 2>&1 && [ -f "$AGENT_DEB" ]; then
	ok packages
	note "packages $CUR in $(($(date +%s) - s))s ($(grep -q 'not built again' "$D/deb.log" && echo 'up to date' || echo 'mk/deb.sh'))"
else
	ko packages "mk/deb.sh failed" "$D/deb.log"
	finish
fi

# 1. the image (attest-agent installed with apt before the first boot,
# its dependencies kept in DEBS for the debian layer) and its files
s=$(date +%s)
if DEB_STAGE_HOOK="deb_stage_apt_agent" deb_image "$O/vm/debian" "$O/vm/debian/layers.img" >"$D/image.log" 2>&1 &&
	mkdir -p "$D/img" && debugfs -R "rdump / $D/img" "$O/vm/debian/layers.img" >"$D/rdump.log" 2>&1 &&
	[ -x "$D/img/usr/bin/attest-agent" ] &&
	[ -s "$D/img/var/lib/dpkg/status" ]; then
	ok image
	note "image and its files in $(($(date +%s) - s))s"
else
	ko image "cannot build or read the Debian guest image" "$D/image.log" "$D/rdump.log"
	finish
fi

# 2. the local repository: attest-demo 1.0, signed with a throwaway key
export GNUPGHOME="$D/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg -q --batch --passphrase '' --quick-gen-key "attest vm test <vm@example.org>" ed25519 sign never 2>/dev/null
gpg -q --export vm@example.org >"$D/repo-key.gpg"
mkdir -p "$D/repo/pool"
demo() { # VERSION: attest-demo_VERSION_all.deb into the repository
	mkdir -p "$D/demo-$1/DEBIAN" "$D/demo-$1/usr/bin"
	printf 'Package: attest-demo\nVersion: %s\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: demo\n' "$1" >"$D/demo-$1/DEBIAN/control"
	printf '#!/bin/sh\necho attest-demo %s\n' "$1" >"$D/demo-$1/usr/bin/attest-demo"
	chmod 755 "$D/demo-$1/usr/bin/attest-demo"
	if [ "$1" != 1.0 ]; then
		# a maintainer script: dpkg runs it as root (IMA measures it under
		# /var/lib/dpkg/info/attest-demo.postinst); it runs the binary the
		# upgrade brought and says which version it replaced (on apt's
		# output: a file it wrote would be one more file root reads that
		# no package has, see whitelist-layers.md, "Limits")
		cat >"$D/demo-$1/DEBIAN/postinst" <<'PEOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
	echo "postinst: $(/usr/bin/attest-demo) configured, upgraded from ${2:-nothing}"
fi
PEOF
		chmod 755 "$D/demo-$1/DEBIAN/postinst"
	fi
	dpkg-deb -Zxz --root-owner-group --build "$D/demo-$1" "$D/repo/pool/attest-demo_${1}_all.deb" >/dev/null
}
sign_repo() {
	(cd "$D/repo" && dpkg-scanpackages --multiversion pool /dev/null 2>/dev/null >Packages && xz -kf Packages &&
		{
			printf 'Origin: attest-vm\nSuite: vm\nSHA256:\n'
			for f in Packages Packages.xz; do printf ' %s %s %s\n' "$(sha256sum $f | cut -d' ' -f1)" "$(stat -c %s $f)" "$f"; done
		} >Release &&
		rm -f InRelease && gpg -q --batch --yes -u vm@example.org --clearsign -o InRelease Release)
}
demo 1.0 && sign_repo || { ko repo "cannot build the local repository"; finish; }

# 3. the layers
R=$D/dpkgroot
mkdir -p "$R/var/lib/dpkg" "$R/var/cache/apt/archives"
cp "$D/img/var/lib/dpkg/status" "$D/img/var/lib/dpkg/diversions" "$R/var/lib/dpkg/"
for f in /var/cache/apt/archives/*.deb "$DEBS"/*.deb "$AGENT_DEB"; do
	[ -f "$f" ] && ln -sf "$f" "$R/var/cache/apt/archives/"
done
"$W" create --dpkg-root "$R" --no-progress -o "$D/debian.json" 2>"$D/debian.err"
missing=$(sed -n 's/^attest-whitelist: \([^ ]*\) \([^ ]*\) [^ ]*: installed, but no .deb.*/\1=\2/p' "$D/debian.err")
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086 # one package=version an argument
	(cd "$DEBS" && apt-get download -q $missing >"$D/download.log" 2>&1)
	chmod a+r "$DEBS"/*.deb
	for f in "$DEBS"/*.deb; do ln -sf "$f" "$R/var/cache/apt/archives/"; done
	"$W" create --dpkg-root "$R" --no-progress -o "$D/debian.json" 2>"$D/debian.err"
fi
# the site's own configuration the test adds: the repository's apt source
# and key, and the agent's CA, token and configuration (what an
# administrator deploys with the hosts); the agent's identity (written at
# enrollment) is excluded
if ! fleet_verifier_start; then
	ko verifier "the verifier did not start" "$D/verifier/verifier.log"
	finish
fi
mkdir -p "$D/site-extra/etc/attest" "$D/pkg-agent"
dpkg-deb -x "$AGENT_DEB" "$D/pkg-agent"
fleet_ctl token 600 >"$D/token.json" 2>"$D/site.err"
printf '%s\n' "$(fleet_json_get "$D/token.json" token)" >"$D/site-extra/etc/attest/enrollment-token"
chmod 600 "$D/site-extra/etc/attest/enrollment-token"
cp "$D/pki/server-ca.pem" "$D/site-extra/etc/attest/verifier-ca.pem"
sed -e "s|^verifier = .*|verifier = https://10.0.2.2:$FLEET_PORT|" -e 's|^#agent_id = .*|agent_id = wl-layers|' \
	-e "s|^interval = .*|interval = $FLEET_INTERVAL|" "$D/pkg-agent/etc/attest/agent.conf" >"$D/site-extra/etc/attest/agent.conf"
HTTP_PORT=$(deb_free_port)
mkdir -p "$D/site-extra/etc/apt/sources.list.d" "$D/site-extra/etc/apt/keyrings" "$D/site-extra/etc/apt/attest-vm.d"
cp "$D/repo-key.gpg" "$D/site-extra/etc/apt/keyrings/attest-vm.gpg"
echo "deb [signed-by=/etc/apt/keyrings/attest-vm.gpg] http://10.0.2.2:$HTTP_PORT/ ./" \
	>"$D/site-extra/etc/apt/sources.list.d/attest-vm.list"
site_re="--include /etc/(hostname|fstab)\$ --include /etc/apt/sources\.list(\.d/.*)?\$ --include /etc/ssh/sshd_config\.d/ --include /root/\.ssh/authorized_keys\$"
# shellcheck disable=SC2046,SC2086
if [ -s "$D/debian.json" ] && ! grep -q 'installed, but no .deb' "$D/debian.err" &&
	"$W" create --initrd "$O/vm/debian/initrd-$KREL.gz" --no-progress -o "$D/initramfs.json" 2>"$D/initramfs.err" &&
	"$W" create --rootfs "$D/img" $(sed -n 's/^[^#]/--include &/p' "$VM_SRC/deploy/whitelist/debian-derived.re") \
		--no-progress -o "$D/derived.json" 2>"$D/derived.err" &&
	"$W" create --rootfs "$D/img" $site_re --no-progress -o "$D/site-img.json" 2>"$D/site.err" &&
	"$W" create --rootfs "$D/site-extra" --no-progress -o "$D/site-extra.json" 2>>"$D/site.err" &&
	"$W" merge "$D/site-img.json" "$D/site-extra.json" -o "$D/site-merged.json" 2>>"$D/site.err" &&
	python3 -c 'import json, sys
wl = json.load(open(sys.argv[1]))
wl.setdefault("excludes", []).append("^/var/lib/attest-agent/")
json.dump(wl, open(sys.argv[2], "w"), indent=2, sort_keys=True)' "$D/site-merged.json" "$D/site.json" 2>>"$D/site.err" &&
	"$W" create --apt-repo "$D/repo" --keyring "$D/repo-key.gpg" --no-progress -o "$D/local.json" 2>"$D/local.err"; then
	ok layers
	note "layers: $(for l in debian initramfs derived site local; do printf '%s %s, ' $l "$(grep -c '^    "/' "$D/$l.json")"; done)paths; $(tail -n 1 "$D/debian.err" | cut -c1-90)"
else
	ko layers "cannot make the layers" "$D/debian.err" "$D/initramfs.err" "$D/derived.err" "$D/site.err" "$D/local.err"
	finish
fi

# 4. the layers uploaded, the layered whitelists
up=0
for l in debian initramfs derived site local; do
	fleet_ctl put-whitelist "$l" "$D/$l.json" >>"$D/upload.log" 2>&1 || up=1
done
fleet_ctl put-whitelist baseline "$VM_SRC/deploy/whitelist/debian-baseline.json" >>"$D/upload.log" 2>&1 || up=1
fleet_ctl put-layers guest site debian initramfs derived baseline local >>"$D/upload.log" 2>&1 || up=1
fleet_ctl put-layers guest-nobaseline site debian initramfs derived local >>"$D/upload.log" 2>&1 || up=1
[ $up = 0 ] && ok upload || { ko upload "cannot upload the layers" "$D/upload.log"; finish; }

# 5. boot with ima_policy=tcb: trusted by the layers; without the
# baseline's excludes, untrusted (the residue is real)
s=$(date +%s)
if deb_boot "$G" "$KREL" "$O/vm/debian/layers.img" "ima_policy=tcb" && deb_wait_ssh "$G" "$BOOT_TIMEOUT"; then
	ok boot
	note "ssh after $(($(date +%s) - s))s"
else
	ko boot "the guest did not boot to ssh in ${BOOT_TIMEOUT}s" "$G/console.log" "$G/qemu.log"
	finish
fi
# the site's files (the agent's, the repository's source), the agent
# started by systemd as the README says; it enrolls, the layers assigned
sa=$(date +%s)
tar -C "$D/site-extra" -cf - etc | deb_ssh "$G" "tar -C / -xf - && systemctl restart attest-agent" >"$D/out" 2>&1
end=$(($(date +%s) + 300))
# enrolled: the credential activated, the certificate issued (enrolled_at)
enrolled() {
	ea=$(agent_state enrolled_at)
	[ -n "$ea" ] && [ "$ea" -gt 0 ] 2>/dev/null
}
while ! enrolled && [ "$(date +%s)" -lt "$end" ]; do
	sleep 2
done
if enrolled && fleet_ctl assign wl-layers guest >>"$D/upload.log" 2>&1; then
	ok agent_enrolled
	note "agent enrolled $(($(date +%s) - sa))s after systemctl restart"
else
	g "systemctl status attest-agent --no-pager; journalctl -u attest-agent --no-pager | tail -n 30"
	ko agent_enrolled "the agent did not enroll" "$D/out" "$D/verifier/verifier.log"
fi
sleep 5
if judge guest "$D/boot.txt"; then
	ok boot_trusted
	note "$(grep -c . "$D/list.bin" >/dev/null; grep -c '^[0-9]' "$D/boot.txt") entries; $(grep '^layer' "$D/boot.txt" | tr '\n' ' ')"
else
	ko boot_trusted "the booted guest fails its layers: $(fails "$D/boot.txt" | head -n 20 | tr '\n' ';')" "$D/boot.txt"
fi
if ! judge guest-nobaseline "$D/nobase.txt" && fails "$D/nobase.txt" | grep -q ' /etc/machine-id$'; then
	ok residue_needed
	note "without the baseline: $(fails "$D/nobase.txt" | grep -c .) failing entries"
else
	ko residue_needed "the guest passed without the baseline's excludes" "$D/nobase.txt"
fi
if agent_after "$sa" trusted 120; then
	ok boot_attested
else
	ko boot_attested "the agent's quote: $(agent_state state): $(agent_reasons | cut -c1-600)" "$D/agent.json"
fi

# 6. attest-demo 1.0 from the signed repository (served over HTTP from
# this host: apt downloads as _apt into its cache), installed and run
python3 -m http.server --bind 127.0.0.1 --directory "$D/repo" "$HTTP_PORT" >"$D/http.log" 2>&1 &
echo $! >"$D/http.pid"
APT="apt-get -q -o Dir::Etc::SourceList=/etc/apt/sources.list.d/attest-vm.list -o Dir::Etc::SourceParts=/etc/apt/attest-vm.d"
g "$APT update && DEBIAN_FRONTEND=noninteractive $APT install -y attest-demo && attest-demo"
if grep -q 'attest-demo 1.0' "$D/out" && judge guest "$D/v1.txt"; then
	ok install_trusted
else
	ko install_trusted "after installing 1.0: $(fails "$D/v1.txt" 2>/dev/null | head -n 20 | tr '\n' ';')" "$D/out" "$D/v1.txt"
fi

# 7. 1.1 published, the local layer regenerated and uploaded; the upgrade
cp "$D/local.json" "$D/local-1.json"
fleet_ctl put-whitelist local-1 "$D/local-1.json" >/dev/null 2>&1 &&
	fleet_ctl put-layers guest-old site debian initramfs derived baseline local-1 >/dev/null 2>&1
s=$(date +%s)
demo 1.1 && sign_repo &&
	"$W" create --apt-repo "$D/repo" --keyring "$D/repo-key.gpg" --no-progress -o "$D/local.json" 2>"$D/local.err" &&
	fleet_ctl put-whitelist local "$D/local.json" >"$D/put.json" 2>&1
note "1.1 published, layer regenerated and uploaded in $(($(date +%s) - s))s: $(tr -d '\n ' <"$D/put.json" | cut -c1-80)"
g "$APT update && DEBIAN_FRONTEND=noninteractive $APT install -y attest-demo && dpkg-query -W attest-demo"
if grep -q 'attest-demo.1\.1' "$D/out" && judge guest "$D/through.txt"; then
	ok upgrade_trusted
else
	ko upgrade_trusted "after apt-get install 1.1: $(fails "$D/through.txt" 2>/dev/null | head -n 20 | tr '\n' ';')" "$D/out" "$D/through.txt"
fi
# 1.1's postinst ran (it wrote what it saw) and was measured, and the
# regenerated repository layer is what allowed it
if grep -q '^postinst: attest-demo 1.1 configured, upgraded from 1.0' "$D/out" &&
	grep -q ' allowed local /var/lib/dpkg/\(info/attest-demo\.\|tmp\.ci/\)postinst$' "$D/through.txt"; then
	ok postinst_trusted
else
	ko postinst_trusted "the postinst did not run, was not measured or not allowed by the local layer" "$D/out" "$D/through.txt"
fi
g "attest-demo"
if grep -q 'attest-demo 1.1' "$D/out" && judge guest "$D/v2.txt"; then
	ok new_binary_trusted
	note "after the upgrade: $(grep '^layer local' "$D/v2.txt")"
else
	ko new_binary_trusted "running 1.1: $(fails "$D/v2.txt" 2>/dev/null | head -n 20 | tr '\n' ';')" "$D/out" "$D/v2.txt"
fi
# the agent's quote after the upgrade and the new binary's run
if agent_after "$(date +%s)" trusted 60; then
	ok upgrade_attested
else
	ko upgrade_attested "the agent's quote after the upgrade: $(agent_state state): $(agent_reasons | cut -c1-600)" "$D/agent.json"
fi
# control: the same list against the layers with the old local layer
if ! judge guest-old "$D/old.txt" && fails "$D/old.txt" | grep -q 'hash-mismatch local-1 /usr/bin/attest-demo$' &&
	fails "$D/old.txt" | grep -q 'unknown-path - /var/lib/dpkg/\(info/attest-demo\.\|tmp\.ci/\)postinst$'; then
	ok old_layer_refuses
else
	ko old_layer_refuses "the old local layer did not refuse 1.1's binary and postinst" "$D/old.txt"
fi

# 8. a binary that came from no package
g "printf '#!/bin/sh\necho not packaged\n' >/usr/local/bin/stray && chmod 755 /usr/local/bin/stray && stray"
if ! judge guest "$D/stray.txt" && fails "$D/stray.txt" | grep -q 'unknown-path - /usr/local/bin/stray$' &&
	[ "$(fails "$D/stray.txt" | grep -c .)" = 1 ]; then
	ok stray_untrusted
else
	ko stray_untrusted "the stray binary was not the one failing entry" "$D/stray.txt"
fi
sa=$(date +%s)
if agent_after "$sa" untrusted 60 && [ "$(agent_reasons)" = "unknown-path: /usr/local/bin/stray" ]; then
	ok stray_attested_untrusted
else
	ko stray_attested_untrusted "the agent's quote after the stray binary: $(agent_state state): $(agent_reasons | cut -c1-600)" "$D/agent.json"
fi
finish
