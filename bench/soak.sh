#!/bin/sh
# bench/soak.sh - verifier soak run (issue 10; `make soak`, never make
# check): SOAK_AGENTS simulated agents (att-bench-loadgen, all honest)
# attest at SOAK_RATE attestations/s for SOAK_SECONDS against one real
# attest-verifier (SQLite, or PostgreSQL with SOAK_BACKEND=pg), which is
# restarted (SIGTERM, drain, start again on the same port and database)
# every SOAK_RESTART seconds. Every SOAK_SAMPLE seconds it records the
# verifier's open files, threads, resident memory and database
# connections. At the end: the samples, per verifier lifetime the
# change of open files and memory from its first to its last sample, the
# requests that failed while it restarted, and the fleet report's counts:
# the run fails if any agent is untrusted or any verdict was wrong.
#
#   bench/soak.sh [BUILD_REL_DIR]
#
# Environment (defaults): SOAK_AGENTS=1000 SOAK_SECONDS=1800
# SOAK_RESTART=300 SOAK_RATE=50 SOAK_ENTRIES=20 SOAK_SAMPLE=10
# SOAK_BACKEND=sqlite SOAK_THREADS=4 SOAK_OUT=DIR (kept; default a
# temporary directory, removed).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
--help | -h)
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac
B=${1:-$SRC/build/rel}
LG=$B/tools/att-bench-loadgen
V=$B/bin/attest-verifier
[ -x "$LG" ] && [ -x "$V" ] || {
	echo "soak.sh: $LG or $V missing (make rel)" >&2
	exit 2
}
AGENTS=${SOAK_AGENTS:-1000}
SECS=${SOAK_SECONDS:-1800}
RESTART=${SOAK_RESTART:-300}
RATE=${SOAK_RATE:-50}
ENTRIES=${SOAK_ENTRIES:-20}
SAMPLE=${SOAK_SAMPLE:-10}
BACKEND=${SOAK_BACKEND:-sqlite}
THREADS=${SOAK_THREADS:-4}
PGBIN=/usr/lib/postgresql/15/bin
if [ -n "${SOAK_OUT:-}" ]; then
	OUT=$SOAK_OUT
	mkdir -p "$OUT"
	keep=1
else
	OUT=$(mktemp -d /tmp/att-soak-XXXXXX)
	keep=0
fi
VPIDS=""
URLS=""
PIDARGS=""
PGD=""
LGPID=""
cleanup() {
	[ -z "$LGPID" ] || kill "$LGPID" 2>/dev/null || true
	for p in $VPIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $VPIDS; do wait "$p" 2>/dev/null || true; done
	if [ -n "$PGD" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGD/data" -m fast -w stop >/dev/null 2>&1 || true
		rm -rf "$PGD"
	fi
	[ "$keep" = 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT INT TERM

# shellcheck source=bench/verifier-lib.sh
. "$SRC/bench/verifier-lib.sh"
bench_pki

case $BACKEND in
sqlite)
	DB="sqlite:$OUT/soak.db"
	dbconns() { ls -l "/proc/$VPID/fd" 2>/dev/null | grep -c 'soak\.db' || true; }
	;;
pg)
	PGD=$(mktemp -d /tmp/att-soak-pg-XXXXXX)
	chown postgres "$PGD"
	runuser -u postgres -- "$PGBIN/initdb" -D "$PGD/data" -A trust -U postgres -N >"$PGD/initdb.log" 2>&1
	PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/server.log" -w \
		-o "-p $PGPORT -k $PGD -c listen_addresses=127.0.0.1" start >/dev/null
	DB="postgresql://postgres@127.0.0.1:$PGPORT/postgres"
	dbconns() {
		runuser -u postgres -- psql -tA -h 127.0.0.1 -p "$PGPORT" -U postgres \
			-c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" 2>/dev/null || echo "?"
	}
	;;
*)
	echo "soak.sh: SOAK_BACKEND is sqlite or pg" >&2
	exit 2
	;;
esac

echo "soak: $(nproc) cores, $(uname -r); $AGENTS agents at $RATE att/s for ${SECS}s,"
echo "soak: $ENTRIES new entries per round, backend $BACKEND, a verifier restart every ${RESTART}s"
start_verifier soak "$DB"
PORT=$(cat "$OUT/soak.port")
life=1

# shellcheck disable=SC2086
nice "$LG" $URLS --pki "$OUT/pki" --ek-ca-cert "$OUT/ekca/ek-ca.pem" \
	--ek-ca-key "$OUT/ek-ca.key" --agents "$AGENTS" --concurrency 16 \
	--rate "$RATE" --soak "$SECS" --entries "$ENTRIES" --files 10000 \
	--bad-sig 0 --unknown 0 --timeout 60 >"$OUT/loadgen.out" 2>"$OUT/loadgen.err" &
LGPID=$!

SAMPLES=$OUT/samples.txt
echo "t_s life fds threads rss_kb db_conns" >"$SAMPLES"
t0=$(date +%s)
started=0
next_restart=0
while kill -0 "$LGPID" 2>/dev/null; do
	now=$(date +%s)
	fds=$(ls "/proc/$VPID/fd" 2>/dev/null | wc -l)
	thr=$(awk '/^Threads:/ {print $2}' "/proc/$VPID/status" 2>/dev/null || echo 0)
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$VPID/status" 2>/dev/null || echo 0)
	echo "$((now - t0)) $life $fds $thr $rss $(dbconns)" >>"$SAMPLES"
	# Restarts count from the start of the generator's soak phase.
	if [ "$started" = 0 ] && grep -q '^soak: start' "$OUT/loadgen.out"; then
		started=1
		next_restart=$((now + RESTART))
	fi
	if [ "$started" = 1 ] && [ "$now" -ge "$next_restart" ]; then
		kill -TERM "$VPID"
		wait "$VPID" || echo "soak.sh: verifier exited $? at its restart" >&2
		VPIDS=""
		URLS=""
		start_verifier soak "$DB" "127.0.0.1:$PORT"
		life=$((life + 1))
		next_restart=$((now + RESTART))
	fi
	sleep "$SAMPLE"
done
status=0
wait "$LGPID" || status=1
LGPID=""

cat "$OUT/loadgen.out"
echo
echo "soak: samples (every ${SAMPLE}s):"
column -t "$SAMPLES" 2>/dev/null || cat "$SAMPLES"
echo
echo "soak: per verifier lifetime, first -> last sample:"
awk 'NR > 1 { if (!($2 in f)) { f[$2] = $3; r[$2] = $5; n++ } l[$2] = $3; lr[$2] = $5; c[$2]++ }
END { for (i = 1; i <= n; i++) printf "  life %d: %d samples, open files %d -> %d, RSS %d -> %d KiB\n", i, c[i], f[i], l[i], r[i], lr[i] }' "$SAMPLES"

# The fleet as the verifier sees it at the end.
curl -s --cacert "$OUT/pki/server-ca.pem" --cert "$OUT/pki/admin.pem" \
	--key "$OUT/pki/admin.key" "https://127.0.0.1:$PORT/v1/fleet" >"$OUT/fleet.json"
python3 - "$OUT/fleet.json" "$AGENTS" <<'PY' || status=1
import json, sys
f = json.load(open(sys.argv[1]))
c = f["counts"]
print("soak: fleet at the end:", json.dumps(c, sort_keys=True))
bad = c.get("untrusted", 0)
if bad:
    print("soak: FAIL: %d agents untrusted" % bad)
    sys.exit(1)
if c.get("trusted", 0) != int(sys.argv[2]):
    print("soak: FAIL: %d trusted of %s" % (c.get("trusted", 0), sys.argv[2]))
    sys.exit(1)
PY
grep '^result phase=soak ' "$OUT/loadgen.out" | sed 's/^/soak: /' || status=1
[ "$status" = 0 ] && echo "soak: PASS" || echo "soak: FAIL"
exit $status
