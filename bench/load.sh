#!/bin/sh
# bench/load.sh - verifier load benchmark (issue 9): att-bench-loadgen
# against real attest-verifier processes. Run by `make bench`, never by
# make check.
#
#   bench/load.sh [--selftest] [BUILD_REL_DIR]
#
# For each backend in LOAD_BACKENDS and each agent count in LOAD_AGENTS:
# a throwaway PKI (deploy/pki.sh) and TPM vendor CA (the EK CA the
# load generator issues its software EKs' certificates from; it is the
# verifiers' ek_ca_dir), a fresh database, the verifier(s), then
# att-bench-loadgen: enrollment, one warm-up round per agent (connection
# closed after it: the memory then is the agents' state), one more round
# per agent leaving its keep-alive TLS connection open, a closed
# loop of LOAD_CONC rounds in flight for LOAD_DURATION s (saturation),
# an open loop at LOAD_RATE attestations/s (0: LOAD_RATE_FRAC x the
# saturation rate) for LOAD_DURATION s, and (first run of each
# backend) one agent whose first attestation has LOAD_BIG entries.
# Ends with a markdown table of the 'result' lines.
#
# Backends: sqlite (one verifier), pg1 / pg2 (one / two verifiers on one
# private PostgreSQL 15 started here, default durability: fsync on).
#
# Environment (defaults): LOAD_BACKENDS="sqlite pg1 pg2"
# LOAD_AGENTS="1000 10000" LOAD_DURATION=20 LOAD_REPEAT=3 (closed-loop runs;
# the median is reported, with the spread) LOAD_CONC=64 LOAD_RATE=250
# LOAD_RATE_FRAC=0.5
# LOAD_ENTRIES=100 LOAD_FILES=100000 LOAD_BIG=100000 LOAD_BAD_SIG=0.01
# LOAD_UNKNOWN=0.01 LOAD_THREADS=16 (verifier threads) LOAD_OUT=DIR (kept;
# default a temporary directory, removed). LOAD_PIN=1: the verifier on
# CPU 0 and the load generator on CPU 1 (the verifier's rate on one core
# of its own; SQLite only, PostgreSQL is not pinned). LOAD_ASK=1: the
# agents ask for every challenge (two requests a round, the protocol
# before the verdict carried the next challenge).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
selftest=0
case "${1:-}" in
--help | -h)
	sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
--selftest)
	selftest=1
	shift
	;;
esac
B=${1:-$SRC/build/rel}
LG=$B/tools/att-bench-loadgen
V=$B/bin/attest-verifier
[ -x "$LG" ] && [ -x "$V" ] || {
	echo "load.sh: $LG or $V missing (make rel)" >&2
	exit 2
}
echo "load: software TPM self-test"
timeout 120 "$LG" --selftest 3
[ "$selftest" = 1 ] && exit 0

BACKENDS=${LOAD_BACKENDS:-sqlite pg1 pg2}
AGENTS=${LOAD_AGENTS:-1000 10000}
DUR=${LOAD_DURATION:-20}
REPEAT=${LOAD_REPEAT:-3}
CONC=${LOAD_CONC:-64}
FRAC=${LOAD_RATE_FRAC:-0.5}
RATE=${LOAD_RATE:-250}
if [ "$RATE" = 0 ]; then ratearg="--rate-frac $FRAC"; else ratearg="--rate $RATE"; fi
ENTRIES=${LOAD_ENTRIES:-100}
FILES=${LOAD_FILES:-100000}
BIG=${LOAD_BIG:-100000}
BAD=${LOAD_BAD_SIG:-0.01}
UNK=${LOAD_UNKNOWN:-0.01}
THREADS=${LOAD_THREADS:-16}
askarg=""
[ "${LOAD_ASK:-0}" = 1 ] && askarg="--ask-challenge"
lgpin=""
if [ "${LOAD_PIN:-0}" = 1 ]; then
	VERIFIER_CPUS=0
	lgpin="taskset -c 1"
fi
PGBIN=/usr/lib/postgresql/15/bin
if [ -n "${LOAD_OUT:-}" ]; then
	OUT=$LOAD_OUT
	mkdir -p "$OUT"
	keep=1
else
	OUT=$(mktemp -d /tmp/att-load-XXXXXX)
	keep=0
fi
VPIDS=""
PGD=""
cleanup() {
	for p in $VPIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $VPIDS; do wait "$p" 2>/dev/null || true; done
	if [ -n "$PGD" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGD/data" -m fast -w stop >/dev/null 2>&1 || true
		rm -rf "$PGD"
	fi
	[ "$keep" = 1 ] || rm -rf "$OUT"
}
trap cleanup EXIT INT TERM

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# shellcheck source=bench/verifier-lib.sh
. "$SRC/bench/verifier-lib.sh"
bench_pki

start_pg() {
	PGD=$(mktemp -d /tmp/att-load-pg-XXXXXX)
	chown postgres "$PGD"
	runuser -u postgres -- "$PGBIN/initdb" -D "$PGD/data" -A trust -U postgres -N >"$PGD/initdb.log" 2>&1
	PGPORT=$(free_port)
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGD/data" -l "$PGD/server.log" -w \
		-o "-p $PGPORT -k $PGD -c listen_addresses=127.0.0.1 -c max_connections=200" \
		start >/dev/null
}

echo "load: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load: backends '$BACKENDS', agents '$AGENTS', $ENTRIES new entries per round,"
echo "load: $FILES whitelisted files, ${DUR}s per phase, $CONC rounds in flight,"
echo "load: misbehaving: $BAD bad signature, $UNK unknown file; verifier threads $THREADS"
echo "load: open loop at ${RATE} attestations/s (0: $FRAC x saturation)"
RES=$OUT/results.txt
TAGS=""
: >"$RES"
status=0
for be in $BACKENDS; do
	bigdone=0
	for n in $AGENTS; do
		URLS=""
		PIDARGS=""
		tag=$be-$n
		TAGS="$TAGS $tag"
		case $be in
		sqlite)
			rm -f "$OUT/$tag.db" "$OUT/$tag.db-wal" "$OUT/$tag.db-shm"
			start_verifier "v-$tag" "sqlite:$OUT/$tag.db"
			;;
		pg1 | pg2)
			[ -n "$PGD" ] || start_pg
			db=$(echo "b_$tag" | tr -- - _)
			runuser -u postgres -- psql -q -h 127.0.0.1 -p "$PGPORT" -U postgres \
				-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
			url="postgresql://postgres@127.0.0.1:$PGPORT/$db"
			start_verifier "v-$tag-a" "$url"
			[ "$be" = pg1 ] || start_verifier "v-$tag-b" "$url"
			;;
		*)
			echo "load.sh: unknown backend $be" >&2
			exit 2
			;;
		esac
		bigarg=""
		[ "$bigdone" = 1 ] || [ "$BIG" = 0 ] || bigarg="--first-big $BIG"
		bigdone=1
		echo
		echo "load: $tag"
		# shellcheck disable=SC2086
		if ! $lgpin nice timeout 3600 "$LG" $URLS $PIDARGS --pki "$OUT/pki" \
			--ek-ca-cert "$OUT/ekca/ek-ca.pem" --ek-ca-key "$OUT/ek-ca.key" \
			--agents "$n" --concurrency "$CONC" --duration "$DUR" --repeat "$REPEAT" \
			$ratearg --entries "$ENTRIES" --files "$FILES" \
			--bad-sig "$BAD" --unknown "$UNK" $bigarg $askarg >"$OUT/$tag.out"; then
			status=1
		fi
		cat "$OUT/$tag.out"
		sed -n "s/^result /backend=$be /p" "$OUT/$tag.out" >>"$RES"
		stop_verifiers
	done
done

echo
echo "| backend | agents | att/s saturation (median) | att/s min-max (runs) | p50 / p99 ms saturation | offered att/s | p50 / p99 ms open loop | verifier CPU ms/att | loadgen CPU ms/att | machine busy cores | verifier peak RSS MiB | KiB/agent state | KiB/agent keep-alive conn | errors / wrong verdicts |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
awk '
function kv(line, k,   a, i, n) { n = split(line, a, " "); for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2); return "" }
{
	be = kv($0, "backend"); ph = kv($0, "phase"); n = kv($0, "agents"); key = be SUBSEP n
	if (ph == "memory") { mem[key] = kv($0, "per_agent_kb"); rss[key] = kv($0, "rss_after_kb"); if (!(be in lo) || n + 0 < lon[be]) { lo[be] = key; lon[be] = n + 0 } if (!(be in hi) || n + 0 > hin[be]) { hi[be] = key; hin[be] = n + 0 } }
	if (ph == "connections") conn[key] = kv($0, "per_agent_kb")
	if (ph == "saturation") { sat[key] = kv($0, "att_per_s"); sp[key] = kv($0, "p50_ms") " / " kv($0, "p99_ms"); cpu[key] = kv($0, "verifier_cpu_ms"); lcpu[key] = kv($0, "loadgen_cpu_ms"); busy[key] = kv($0, "machine_busy_cores"); order[++no] = key }
	if (ph == "saturation-spread") spr[key] = sprintf("%.0f-%.0f (%s)", kv($0, "min"), kv($0, "max"), kv($0, "runs"))
	if (ph == "rate") { off[key] = kv($0, "offered"); rp[key] = kv($0, "p50_ms") " / " kv($0, "p99_ms") }
	if (ph == "end") hwm[key] = kv($0, "hwm_kb")
	if (ph == "warmup" || ph == "connect" || ph == "saturation" || ph == "rate") { err[key] += kv($0, "errors"); wr[key] += kv($0, "wrong") }
}
END {
	for (i = 1; i <= no; i++) { k = order[i]; split(k, p, SUBSEP)
		printf "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %d / %d |\n", p[1], p[2], sat[k], spr[k], sp[k], off[k], rp[k], cpu[k], lcpu[k], busy[k], hwm[k] / 1024, mem[k], conn[k], err[k], wr[k] }
}' "$RES"
for tag in $TAGS; do
	grep -h "^first-big" "$OUT/$tag.out" | sed "s|^|load: $tag: |" || true
done
exit $status
