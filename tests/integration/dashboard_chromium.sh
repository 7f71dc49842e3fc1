#!/bin/sh
# dashboard_chromium.sh - the fleet dashboard (GET /dashboard) in a real
# headless Chromium against a real attest-verifier over HTTPS on loopback,
# and the Grafana dashboard (deploy/grafana/) against a real /metrics.
#
# A throwaway PKI (deploy/pki.sh) and TPM vendor CA, the release
# verifier on SQLite, four simulated agents (bench/loadgen: software TPMs
# that enroll and attest for real): two honest (trusted), one with a
# broken quote signature and one measuring a file on no whitelist, whose
# path is markup (untrusted, with those reasons). Then:
#  - curl: the page, script and style sheet are admin only (401 without a
#    certificate or with one from an untrusted CA, 403 for an agent's) and
#    carry the CSP and the other headers; dashboard = 0 turns them off;
#  - Chromium, with the admin certificate and the server CA in an NSS
#    database and the certificate selected for the verifier's origin by
#    the profile's AUTO_SELECT_CERTIFICATE content setting (no
#    --ignore-certificate-errors): the DOM after the script ran (rows,
#    state classes, reasons, counts, the hostile path as text and not as
#    an element, the page title untouched) and a screenshot (its size, not
#    one colour, the state colours on it); the verifier's log shows the
#    page and /v1/fleet answered to the admin;
#  - the same assets, as the verifier served them, from a plain HTTP
#    stand-in whose /v1/fleet answers once with slim.ko lattice states
#    (hostile strings in a demotion) and then fails: the lattice cells,
#    then the STALE banner and the table marked stale;
#  - deploy/grafana/attest-dashboard.json against a /metrics scrape.
# Fails (no skip) when Chromium or the NSS tools are missing.
set -u
B=${ATT_BUILD:?}
SRC=${ATT_SRC:?}
V=$B/bin/attest-verifier
LG=$B/tools/att-bench-loadgen
CHECK="python3 $SRC/tests/integration/dashboard_check.py"
W=1280
H=900
fail=0
die() {
	echo "FAIL $*"
	exit 1
}
ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	fail=1
}
for t in chromium certutil pk12util curl python3 openssl; do
	command -v "$t" >/dev/null || die "$t missing (deploy/install-deps.sh installs it)"
done
[ -x "$V" ] && [ -x "$LG" ] || die "$V or $LG missing (make rel)"

OUT=$(mktemp -d /tmp/att-dash-XXXXXX)
VPID=""
SPID=""
cleanup() {
	[ -z "$VPID" ] || kill -TERM "$VPID" 2>/dev/null
	[ -z "$SPID" ] || kill -TERM "$SPID" 2>/dev/null
	wait 2>/dev/null
	[ -n "${ATT_KEEP:-}" ] || rm -rf "$OUT"
}
trap cleanup EXIT

# PKI, EK CA (bench/verifier-lib.sh's bench_pki), an agent-role
# certificate for the 403 case.
. "$SRC/bench/verifier-lib.sh"
bench_pki >/dev/null
sh "$SRC/deploy/pki.sh" client "$OUT/pki" agent-ca dash-intruder

# start_verifier LOG EXTRA...: sets VPID, PORT, URL
start_verifier_dbg() {
	log=$1
	shift
	rm -f "$OUT/port"
	"$V" --listen 127.0.0.1:0 --port-file "$OUT/port" \
		--tls-cert "$OUT/pki/server.pem" --tls-key "$OUT/pki/server.key" \
		--admin-ca "$OUT/pki/admin-ca.pem" --agent-ca "$OUT/pki/agent-ca.pem" \
		--agent-ca-key "$OUT/pki/agent-ca.key" --ek-ca-dir "$OUT/ekca" \
		--database "sqlite:$OUT/v.db" --threads 4 --interval 86400 \
		--log-level debug "$@" 2>>"$OUT/$log" &
	VPID=$!
	i=0
	while [ ! -s "$OUT/port" ]; do
		i=$((i + 1))
		[ $i -le 300 ] && kill -0 "$VPID" 2>/dev/null ||
			{ tail -5 "$OUT/$log"; die "the verifier did not start"; }
		sleep 0.1
	done
	PORT=$(cat "$OUT/port")
	URL=https://127.0.0.1:$PORT
}
stop_verifier() {
	kill -TERM "$VPID"
	wait "$VPID" || bad "verifier exited $?"
	VPID=""
}
start_verifier_dbg v.log

# The fleet: agent i is honest, bad-signature or unknown-file by the load
# generator's golden-ratio spread: dash-00000 unknown file, -00001 and
# -00002 honest, -00003 bad signature.
HOSTILE='/opt/<img src=x onerror=document.title="PWNED">&<b>bold</b>'
"$LG" --url "$URL" --pki "$OUT/pki" --ek-ca-cert "$OUT/ekca/ek-ca.pem" \
	--ek-ca-key "$OUT/ek-ca.key" --agents 4 --concurrency 2 --duration 1 \
	--entries 4 --files 50 --bad-sig 0.2 --unknown 0.34 --prefix dash \
	--unknown-path "$HOSTILE" >"$OUT/loadgen.log" 2>&1 ||
	{ tail -20 "$OUT/loadgen.log"; die "the load generator failed"; }
ok "4 simulated agents enrolled and attested (2 honest, 1 bad signature, 1 unknown file)"

ADMIN="--cacert $OUT/pki/server-ca.pem --cert $OUT/pki/admin.pem --key $OUT/pki/admin.key"
CA="--cacert $OUT/pki/server-ca.pem"
# status CURLARGS... URL
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
for a in /dashboard /dashboard.js /dashboard.css; do
	# shellcheck disable=SC2086
	s=$(status $CA "$URL$a")
	[ "$s" = 401 ] && ok "$a without a certificate: 401" || bad "$a without a certificate: $s"
	# shellcheck disable=SC2086
	s=$(status $CA --cert "$OUT/pki/rogue.pem" --key "$OUT/pki/rogue.key" "$URL$a")
	[ "$s" = 401 ] && ok "$a with an untrusted CA's certificate: 401" || bad "$a rogue: $s"
	# shellcheck disable=SC2086
	s=$(status $CA --cert "$OUT/pki/dash-intruder.pem" --key "$OUT/pki/dash-intruder.key" "$URL$a")
	[ "$s" = 403 ] && ok "$a with an agent's certificate: 403" || bad "$a agent: $s"
	# shellcheck disable=SC2086
	s=$(status $ADMIN -X POST "$URL$a")
	[ "$s" = 405 ] && ok "POST $a (admin): 405" || bad "POST $a: $s"
done
mkdir -p "$OUT/stand"
for a in dashboard dashboard.js dashboard.css; do
	f=$a
	[ "$a" = dashboard ] && f=dashboard.html
	# shellcheck disable=SC2086
	curl -s -D "$OUT/$a.hdr" -o "$OUT/stand/$f" $ADMIN "$URL/$a" || bad "GET /$a"
done
cmp -s "$OUT/stand/dashboard.html" "$SRC/verifier/service/dashboard.html" &&
	cmp -s "$OUT/stand/dashboard.js" "$SRC/verifier/service/dashboard.js" &&
	cmp -s "$OUT/stand/dashboard.css" "$SRC/verifier/service/dashboard.css" &&
	ok "the verifier serves dashboard.{html,js,css} byte for byte" ||
	bad "the assets served differ from verifier/service/dashboard.*"
CSP="default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
for a in dashboard dashboard.js dashboard.css; do
	h=$(tr -d '\r' <"$OUT/$a.hdr")
	for want in "HTTP/1.1 200" "Content-Security-Policy: $CSP" "X-Frame-Options: DENY" \
		"X-Content-Type-Options: nosniff" "Cache-Control: no-store" "Referrer-Policy: no-referrer"; do
		printf '%s\n' "$h" | grep -qiF "$want" || bad "/$a: no '$want'"
	done
done
grep -qi '^Content-Type: text/html; charset=utf-8' "$OUT/dashboard.hdr" &&
	grep -qi '^Content-Type: text/javascript' "$OUT/dashboard.js.hdr" &&
	grep -qi '^Content-Type: text/css' "$OUT/dashboard.css.hdr" &&
	ok "content types html, javascript, css; CSP, X-Frame-Options, nosniff, no-store on each" ||
	bad "content types"
printf '%s' "$CSP" >"$OUT/stand/csp"
# shellcheck disable=SC2086
curl -sf $ADMIN "$URL/v1/fleet" >"$OUT/fleet-api.json" || bad "GET /v1/fleet"
# shellcheck disable=SC2086
curl -sf $ADMIN "$URL/metrics" >"$OUT/metrics.txt" || bad "GET /metrics"

# Chromium's profile: the admin certificate and the server CA in its NSS
# database ($HOME/.pki/nssdb), the certificate auto-selected for this
# origin (the content setting the AutoSelectCertificateForUrls policy
# sets, here in the profile's preferences).
export HOME="$OUT/home"
mkdir -p "$HOME/.pki/nssdb" "$OUT/prof/Default"
openssl pkcs12 -export -in "$OUT/pki/admin.pem" -inkey "$OUT/pki/admin.key" \
	-name attest-admin -passout pass: -out "$OUT/admin.p12" || die "pkcs12"
certutil -N -d "sql:$HOME/.pki/nssdb" --empty-password || die "certutil -N"
pk12util -i "$OUT/admin.p12" -d "sql:$HOME/.pki/nssdb" -W '' >/dev/null || die "pk12util"
certutil -A -d "sql:$HOME/.pki/nssdb" -n attest-server-ca -t 'C,,' \
	-i "$OUT/pki/server-ca.pem" || die "certutil -A"
cat >"$OUT/prof/Default/Preferences" <<EOF
{"profile": {"content_settings": {"exceptions": {"auto_select_certificate":
 {"https://127.0.0.1:$PORT,*": {"setting": {"filters": [{}]}}}}}}}
EOF
# chrome ARGS...: headless Chromium with that profile, 60 s at most
chrome() {
	timeout 60 chromium --headless=new --no-sandbox --disable-gpu \
		--no-first-run --no-default-browser-check --disable-extensions \
		--user-data-dir="$OUT/prof" --hide-scrollbars \
		--window-size="$W,$H" "$@" 2>>"$OUT/chromium.log"
}

chrome --virtual-time-budget=3000 --dump-dom "$URL/dashboard" >"$OUT/dom.html" ||
	bad "chromium --dump-dom failed (status $?)"
SPEC=$(
	cat <<EOF
{"rows": {
  "dash-00000": {"state": "untrusted", "reasons": ["$(printf '%s' "$HOSTILE" | sed 's/"/\\"/g')"]},
  "dash-00001": {"state": "trusted", "no_reasons": true, "text": ["no slim.ko state", "s ago"]},
  "dash-00002": {"state": "trusted", "no_reasons": true},
  "dash-00003": {"state": "untrusted", "reasons": ["quote"]}},
 "counts": {"trusted": 2, "untrusted": 2, "stale": 0, "total": 4},
 "forbidden_tags": ["img", "b", "script"],
 "status": "ok", "status_text": ["Refreshed", "every 5 s"], "stale": false, "refresh": 5}
EOF
)
$CHECK dom "$OUT/dom.html" "$SPEC" || bad "the dashboard's DOM (dump in $OUT/dom.html)"

chrome --virtual-time-budget=3000 --dump-dom "$URL/dashboard?refresh=17" >"$OUT/dom17.html" ||
	bad "chromium --dump-dom ?refresh=17"
grep -q 'Refreshes every 17 s\.' "$OUT/dom17.html" && ok "?refresh=17 is shown and used" ||
	bad "?refresh=17 not shown"

rm -f "$OUT/shot.png"
chrome --virtual-time-budget=3000 --screenshot="$OUT/shot.png" "$URL/dashboard" >/dev/null ||
	bad "chromium --screenshot failed (status $?)"
if [ -s "$OUT/shot.png" ]; then
	sz=$(wc -c <"$OUT/shot.png")
	[ "$sz" -gt 20000 ] && ok "screenshot $sz bytes" || bad "screenshot only $sz bytes"
	$CHECK png "$OUT/shot.png" "$W" "$H" || bad "the screenshot"
	[ -z "${ATT_DASH_SHOT:-}" ] || cp "$OUT/shot.png" "$ATT_DASH_SHOT"
else
	bad "no screenshot"
fi
n=$(grep -c 'GET /dashboard -> 200 (admin)' "$OUT/v.log")
m=$(grep -c 'GET /v1/fleet -> 200 (admin)' "$OUT/v.log")
j=$(grep -c 'GET /dashboard.js -> 200 (admin)' "$OUT/v.log")
[ "$n" -ge 3 ] && [ "$j" -ge 3 ] && [ "$m" -ge 3 ] &&
	ok "the verifier answered Chromium as admin: page $n, script $j, fleet $m times" ||
	bad "the verifier's log: page $n, script $j, fleet $m answers to the admin"
grep -q 'GET /favicon.ico' "$OUT/v.log" && bad "the page asked for /favicon.ico"

# The Grafana dashboard against the real scrape.
$CHECK grafana "$SRC/deploy/grafana/attest-dashboard.json" "$OUT/metrics.txt" >"$OUT/grafana.log" ||
	{ grep FAIL "$OUT/grafana.log"; bad "deploy/grafana/attest-dashboard.json"; }
grep -c '^ok' "$OUT/grafana.log" | sed 's/^/ok   grafana: /; s/$/ checks/'

# dashboard = 0: the same URLs are 404, the API is unchanged.
stop_verifier
start_verifier_dbg v0.log --dashboard 0
# shellcheck disable=SC2086
s=$(status $ADMIN "$URL/dashboard")
# shellcheck disable=SC2086
f=$(status $ADMIN "$URL/v1/fleet")
[ "$s" = 404 ] && [ "$f" = 200 ] && ok "--dashboard 0: /dashboard 404, /v1/fleet 200" ||
	bad "--dashboard 0: /dashboard $s, /v1/fleet $f"
stop_verifier

# The stand-in: lattice states from a fixture, then a failing /v1/fleet.
python3 - "$OUT/fleet-api.json" "$OUT/stand/fleet.json" <<'PY' || die "fixture"
import json, sys
d = json.load(open(sys.argv[1]))
lat = {"log": "slim", "loaded": True, "reloaded": True, "version": "0.9",
       "mode": "enforce", "policy_digest": "ab" * 32, "evm_key": True,
       "relabels": 2, "demotions": 3, "dropped_events": 5,
       "events_capped": False, "recent_demotions": [
           {"time": 1796600000, "pid": 4242, "comm": "<svg onload=alert(1)>",
            "exe": "/usr/bin/<i>x</i>", "from": "SYSTEM", "to": "USER",
            "cause": "file", "path": "/tmp/<script>alert(2)</script>"}]}
for a in d["agents"]:
    if a["id"] == "dash-00001":
        a["lattice"] = lat
    if a["id"] == "dash-00002":
        a["lattice"] = dict(lat, mode="permissive", reloaded=False,
                            evm_key=False, demotions=0, dropped_events=0,
                            recent_demotions=[])
json.dump(d, open(sys.argv[2], "w"))
PY
$CHECK serve "$OUT/stand" "$OUT/stand.port" 2>"$OUT/stand.log" &
SPID=$!
i=0
while [ ! -s "$OUT/stand.port" ]; do
	i=$((i + 1))
	[ $i -le 100 ] || die "the stand-in did not start"
	sleep 0.1
done
SURL=http://127.0.0.1:$(cat "$OUT/stand.port")
chrome --virtual-time-budget=5000 --dump-dom "$SURL/dashboard?refresh=1" >"$OUT/dom-stale.html" ||
	bad "chromium --dump-dom (stand-in)"
SPEC=$(
	cat <<EOF
{"rows": {
  "dash-00000": {"state": "untrusted"},
  "dash-00001": {"state": "trusted", "text": ["mode enforce", "v0.9", "reloaded",
    "policy abababababab", "EVM key yes", "demotions 3, relabels 2", "dropped events 5",
    "newest: <svg onload=alert(1)> (pid 4242) /usr/bin/<i>x</i>: SYSTEM \u2192 USER, file /tmp/<script>alert(2)</script>"]},
  "dash-00002": {"state": "trusted", "text": ["mode permissive", "EVM key no", "demotions 0"]},
  "dash-00003": {"state": "untrusted"}},
 "counts": {"trusted": 2, "untrusted": 2, "total": 4},
 "forbidden_tags": ["img", "b", "svg", "i", "script"],
 "status": "error", "status_text": ["STALE", "HTTP 503: stand-in down", "not the fleet now"],
 "stale": true, "refresh": 1}
EOF
)
$CHECK dom "$OUT/dom-stale.html" "$SPEC" || bad "the stale dashboard's DOM ($OUT/dom-stale.html)"
k=$(grep -c '"GET /v1/fleet' "$OUT/stand.log")
[ "$k" -ge 2 ] && ok "the page refreshed by itself ($k fetches of /v1/fleet)" ||
	bad "only $k fetches of /v1/fleet"
exit $fail
