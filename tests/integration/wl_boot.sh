#!/bin/sh
# wl_boot.sh - attest-whitelist create --uefi-log and check --uefi-log on
# the real OVMF Secure Boot log of tests/fixtures/uefi: the boot section
# create writes is compared with what tpm2-tools' tpm2_eventlog reads from
# the same log (boot applications in order, grub's kernel and initrd, the
# command line, SecureBoot), not with attest's own parser; check passes the
# golden log and names the event of each rule an edited policy breaks; a
# replay to other PCRs is untrusted, a truncated log an error (exit 2).
set -u
B=${ATT_SAN_BUILD:?}
W="$B/bin/attest-whitelist"
FX="$ATT_SRC/tests/fixtures/uefi"
LOG="$FX/ovmf-sb-shim-grub.bin"
PCRS="$FX/ovmf-sb-shim-grub.pcrs.json"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "${ATT_SRC:?}/tests/lib/shtest.sh"
# has WHAT TEXT: the last command's output holds TEXT
has() {
	if grep -qF -- "$2" "$T/out" "$T/err"; then ok "$1"; else
		bad "$1: no '$2' in"
		sed 's/^/     /' "$T/out" "$T/err" | head -20
	fi
}
command -v tpm2_eventlog >/dev/null ||
	{ echo "FAIL tpm2_eventlog (tpm2-tools) is not installed"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL python3 is not installed"; exit 1; }
export SOURCE_DATE_EPOCH=1700000000

tpm2_eventlog "$LOG" >"$T/ev.yaml" || { echo "FAIL tpm2_eventlog $LOG"; exit 1; }
expect 0 "create --uefi-log" "$W" create --uefi-log "$LOG" -o "$T/wl.json"
has "create names what it found" "Secure Boot on;"

# What tpm2_eventlog says, as JSON: per event its number, PCR, type,
# sha256 digest and string (the YAML is read line by line: no PyYAML).
python3 - "$T/ev.yaml" "$T/wl.json" "$T/cmp.txt" <<'EOF'
import json, re, sys
evs, cur = [], None
for line in open(sys.argv[1]):
    m = re.match(r'^- EventNum: (\d+)', line)
    if m:
        cur = {'num': int(m.group(1)), 'str': None, 'data': None}
        evs.append(cur)
        continue
    if cur is None:
        continue
    for key, rx in (('pcr', r'^\s+PCRIndex: (\d+)'), ('type', r'^\s+EventType: (\S+)'),
                    ('data', r'^\s+VariableData: "?([0-9a-fA-F]+)"?')):
        m = re.match(rx, line)
        if m:
            cur[key] = m.group(1)
    m = re.match(r'^\s+Digest: "([0-9a-f]{64})"', line)
    if m:
        cur['sha256'] = m.group(1)
    if cur.get('want_str'):
        v = line.strip()  # "text\0", quoted, with grub's NUL
        if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
            v = v[1:-1]
        cur['str'] = v[:-2] if v.endswith('\\0') else v
        cur['want_str'] = False
    if re.match(r'^\s+String: \|-', line):
        cur['want_str'] = True
    m = re.match(r'^\s+UnicodeName: (\S+)', line)
    if m:
        cur['name'] = m.group(1)
boot = json.load(open(sys.argv[2]))['boot']
out = open(sys.argv[3], 'w')
def say(what, good, detail):
    out.write('%s %s: %s\n' % ('ok' if good else 'FAIL', what, detail))
apps = ['sha256:' + e['sha256'] for e in evs
        if e.get('pcr') == '4' and e.get('type') == 'EV_EFI_BOOT_SERVICES_APPLICATION']
got = [s[0] if len(s) == 1 else s for s in boot.get('boot_apps', [])]
say('boot_apps are PCR 4 applications in order', len(apps) == 4 and got == apps,
    '%s vs %s' % (got, apps))
ipl = [(e['str'], e['sha256']) for e in evs if e.get('pcr') == '9' and e.get('str')]
kern = ['sha256:' + d for s, d in ipl if s.startswith('/vmlinuz')]
initrd = ['sha256:' + d for s, d in ipl if s.startswith('/initrd')]
say('kernels are grub\'s /vmlinuz in PCR 9', kern and boot.get('kernels') == kern,
    '%s vs %s' % (boot.get('kernels'), kern))
say('initrds are grub\'s /initrd in PCR 9', initrd and boot.get('initrds') == initrd,
    '%s vs %s' % (boot.get('initrds'), initrd))
cmd = [e['str'][len('kernel_cmdline: '):] for e in evs
       if e.get('pcr') == '8' and (e.get('str') or '').startswith('kernel_cmdline: ')]
pat = boot.get('cmdline')
say('cmdline pattern matches grub\'s kernel_cmdline, whole',
    len(cmd) == 1 and isinstance(pat, str) and re.fullmatch(pat, cmd[0]) is not None,
    '%r vs %r' % (pat, cmd))
say('cmdline pattern is exact (a changed argument fails it)',
    isinstance(pat, str) and re.fullmatch(pat, cmd[0] + ' init=/bin/sh') is None,
    repr(pat))
sb = [e.get('data') for e in evs if e.get('name') == 'SecureBoot']
say('secure_boot is true as SecureBoot = 01', sb == ['01'] and boot.get('secure_boot') is True,
    '%s, %s' % (sb, boot.get('secure_boot')))
say('separators are required', boot.get('separators') is True, boot.get('separators'))
for k in ('pk', 'kek', 'db', 'dbx_required'):
    say(k + ' is a non-empty set', isinstance(boot.get(k), list) and len(boot[k]) > 0,
        boot.get(k))
grub = [e['num'] for e in evs
        if e.get('pcr') == '4' and e.get('type') == 'EV_EFI_BOOT_SERVICES_APPLICATION'][1]
# our event index counts from 0 after the Spec ID header (tpm2_eventlog's 0)
out.write('grub-event %d\n' % (grub - 1))
ev8 = [e['num'] for e in evs
       if e.get('pcr') == '8' and (e.get('str') or '').startswith('kernel_cmdline: ')]
out.write('cmdline-event %d\n' % (ev8[0] - 1 if ev8 else -1))
EOF
[ -s "$T/cmp.txt" ] || bad "the comparison with tpm2_eventlog did not run"
while read -r verdict rest; do
	case $verdict in
	ok) ok "$rest" ;;
	FAIL) bad "$rest" ;;
	esac
done <"$T/cmp.txt"
grub_ev=$(sed -n 's/^grub-event //p' "$T/cmp.txt")
cmd_ev=$(sed -n 's/^cmdline-event //p' "$T/cmp.txt")

# the golden machine's own log passes its own policy, replayed to its PCRs
expect 0 "check the golden log" "$W" check "$T/wl.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "the golden log replays" "replays to the PCR values"
has "the golden log is trusted" "result: trusted"
expect 0 "check --json" "$W" check "$T/wl.json" --uefi-log "$LOG" --pcrs "$PCRS" --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["boot"]; sys.exit(not (b["status"] == "pass" and b["failures_total"] == 0 and d["matched"]))' "$T/out"; then
	ok "JSON: boot pass, replay matched"
else
	bad "JSON: $(head -c 400 "$T/out")"
fi

# edit PATH EXPR: a copy of the whitelist with EXPR applied to its boot section
edit() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["boot"]; exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' \
		"$T/wl.json" "$1" "$2"
}
other=sha256:$(printf 'another grub' | sha256sum | cut -d' ' -f1)
edit "$T/grub.json" "b['boot_apps'][1] = ['$other']"
expect 1 "a grub the policy does not allow" "$W" check "$T/grub.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names its event" "event $grub_ev (PCR 4, EV_EFI_BOOT_SERVICES_APPLICATION)"
has "... is untrusted" "result: untrusted"
expect 1 "... and in JSON" "$W" check "$T/grub.json" --uefi-log "$LOG" --pcrs "$PCRS" --json
if python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["boot"]["failures"]; sys.exit(not (len(f) == 1 and f[0]["index"] == int(sys.argv[2]) and f[0]["pcr"] == 4 and f[0]["type"] == "EV_EFI_BOOT_SERVICES_APPLICATION" and f[0]["rule"] == "boot_apps" and "grubx64.efi" in f[0]["detail"]))' "$T/out" "$grub_ev"; then
	ok "... the JSON failure names index, PCR, type, rule and the file"
else
	bad "... JSON failure: $(head -c 600 "$T/out")"
fi
edit "$T/two.json" "b['boot_apps'][1].append('$other')"
expect 0 "a stage may allow more than one digest" "$W" check "$T/two.json" --uefi-log "$LOG" --pcrs "$PCRS"
edit "$T/cmd.json" "b['cmdline'] = '/vmlinuz console=ttyS0 quiet'"
expect 1 "another command line" "$W" check "$T/cmd.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names its event" "event $cmd_ev (PCR 8,"
edit "$T/kern.json" "b['kernels'] = ['$other']"
expect 1 "another kernel" "$W" check "$T/kern.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names PCR 9" "(PCR 9,"
edit "$T/initrd.json" "b['initrds'] = ['$other']"
expect 1 "another initrd" "$W" check "$T/initrd.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names PCR 9" "(PCR 9,"
edit "$T/dbx.json" "b['dbx_required'].append({'id': '${other#sha256:}', 'owner': b['dbx_required'][0]['owner']})"
expect 1 "a dbx entry the log lacks" "$W" check "$T/dbx.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names dbx" "dbx"
edit "$T/db.json" "b['db'] = b['db'][:1]"
expect 1 "a db entry the policy does not allow" "$W" check "$T/db.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names PCR 7" "(PCR 7,"
edit "$T/kek.json" "b['kek'] = [b['pk'][0]] if b['pk'][0] not in b['kek'] else b['kek'][:1]"
expect 1 "a KEK entry the policy does not allow" "$W" check "$T/kek.json" --uefi-log "$LOG" --pcrs "$PCRS"
has "... names PCR 7" "(PCR 7,"

# the log against other PCR values: not trusted, whatever the policy says
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["sha256"]["4"] = "00" * 32; json.dump(d, open(sys.argv[2], "w"))' \
	"$PCRS" "$T/pcrs-bad.json"
expect 1 "a log that does not replay to the quoted PCR 4" "$W" check "$T/wl.json" --uefi-log "$LOG" --pcrs "$T/pcrs-bad.json"
has "... is untrusted" "result: untrusted"

# bad input: an error (exit 2), never a verdict
head -c 1000 "$LOG" >"$T/trunc.bin"
expect 2 "a truncated log" "$W" check "$T/wl.json" --uefi-log "$T/trunc.bin"
has "... says where" "is truncated"
has "... is an error, not a verdict" "result: error"
expect 2 "create from a truncated log" "$W" create --uefi-log "$T/trunc.bin" -o "$T/never.json"
[ ! -e "$T/never.json" ] && ok "... writes nothing" || bad "... wrote $T/never.json"
edit "$T/badsec.json" "b['boot_apps'] = 'shim'"
expect 2 "a boot section of the wrong shape" "$W" check "$T/badsec.json" --uefi-log "$LOG"
expect 1 "validate refuses it" "$W" validate "$T/badsec.json"

echo "wl_boot: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
