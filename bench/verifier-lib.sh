# bench/verifier-lib.sh - sourced by bench/load.sh and bench/soak.sh: a
# throwaway PKI and TPM vendor CA in $OUT, real attest-verifier processes.
# Needs SRC, OUT, V (the verifier binary) and THREADS; appends to VPIDS,
# URLS and PIDARGS. VERIFIER_CPUS (optional): taskset CPU list for the
# verifiers.

# The PKI (deploy/pki.sh) and the EK CA the load generator issues its
# software EKs' certificates from (it is the verifiers' ek_ca_dir).
bench_pki() {
	sh "$SRC/deploy/pki.sh" init "$OUT/pki"
	mkdir -p "$OUT/ekca"
	(umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$OUT/ek-ca.key" 2>/dev/null)
	openssl req -new -x509 -key "$OUT/ek-ca.key" -out "$OUT/ekca/ek-ca.pem" -days 30 \
		-subj "/O=attest bench TPM vendor/CN=bench EK CA" -sha256 \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# start_verifier NAME DB [LISTEN]: starts one (LISTEN default
# 127.0.0.1:0, a free port), appends its pid to VPIDS, its URL to URLS,
# and sets VPID. --interval 86400: the simulated agents attest as fast as
# the generator drives them, not on a schedule; with the default 60 s the
# stale sweep would mark thousands of them stale between their rounds and
# the run would measure that instead (seen at 10,000 agents).
start_verifier() {
	pf=$OUT/$1.port
	rm -f "$pf"
	pin=""
	[ -z "${VERIFIER_CPUS:-}" ] || pin="taskset -c $VERIFIER_CPUS"
	# shellcheck disable=SC2086
	$pin "$V" --listen "${3:-127.0.0.1:0}" --port-file "$pf" \
		--tls-cert "$OUT/pki/server.pem" --tls-key "$OUT/pki/server.key" \
		--admin-ca "$OUT/pki/admin-ca.pem" --agent-ca "$OUT/pki/agent-ca.pem" \
		--agent-ca-key "$OUT/pki/agent-ca.key" --ek-ca-dir "$OUT/ekca" \
		--database "$2" --max-connections 30000 --threads "$THREADS" \
		--max-body 67108864 --request-timeout 600 --nonce-lifetime 300 \
		--interval 86400 \
		2>>"$OUT/$1.log" &
	VPID=$!
	VPIDS="$VPIDS $VPID"
	i=0
	while [ ! -s "$pf" ]; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$VPID" 2>/dev/null; then
			echo "$0: verifier $1 did not start; see $OUT/$1.log" >&2
			tail -5 "$OUT/$1.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	URLS="$URLS --url https://127.0.0.1:$(cat "$pf")"
	PIDARGS="$PIDARGS --verifier-pid $VPID"
}

stop_verifiers() {
	for p in $VPIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $VPIDS; do wait "$p" || echo "$0: verifier $p exited $?" >&2; done
	VPIDS=""
}
