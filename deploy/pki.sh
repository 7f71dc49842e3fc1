#!/bin/sh
# pki.sh - a throwaway PKI for attest-verifier tests and demos (openssl CLI).
#
#   deploy/pki.sh init DIR              CAs and certificates, see below
#   deploy/pki.sh client DIR CA NAME    one more client certificate NAME
#                                       (CN=NAME) signed by CA (admin-ca,
#                                       agent-ca or rogue-ca)
#
# init writes into DIR (created; keys mode 0600, ECDSA P-256, SHA-256):
#   server-ca.pem/.key   CA the agents and attestctl pin
#   server.pem/.key      verifier certificate: CN=localhost,
#                        SAN DNS:localhost, IP:127.0.0.1 (and
#                        $PKI_SERVER_SAN, e.g. IP:10.0.2.2), serverAuth
#   admin-ca.pem/.key    CA of admin client certificates
#   admin.pem/.key       admin client certificate (CN=admin, clientAuth)
#   agent-ca.pem/.key    CA of agent client certificates (the verifier
#                        issues them at enrollment with this key)
#   rogue-ca.pem/.key    a CA nobody trusts
#   rogue.pem/.key       client certificate from it (CN=admin)
# Not for production: no revocation, no passphrases, keys on disk.
set -eu

usage() {
	sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
dir=$2
days=${PKI_DAYS:-30}

newkey() {
	(umask 077 && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null)
}

mkca() { # name CN
	newkey "$dir/$1.key"
	openssl req -new -x509 -key "$dir/$1.key" -out "$dir/$1.pem" -days "$days" \
		-subj "/O=attest test/CN=$2" -sha256 \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

sign() { # ca name CN ext
	newkey "$dir/$2.key"
	openssl req -new -key "$dir/$2.key" -subj "/O=attest test/CN=$3" \
		-out "$dir/$2.csr" 2>/dev/null
	printf '%b' "$4" >"$dir/$2.ext"
	openssl x509 -req -in "$dir/$2.csr" -CA "$dir/$1.pem" -CAkey "$dir/$1.key" \
		-CAcreateserial -out "$dir/$2.pem" -days "$days" -sha256 \
		-extfile "$dir/$2.ext" 2>/dev/null
	rm -f "$dir/$2.csr" "$dir/$2.ext"
}

client_ext="basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n"

case "$cmd" in
init)
	mkdir -p "$dir"
	mkca server-ca "attest test server CA"
	mkca admin-ca "attest test admin CA"
	mkca agent-ca "attest test agent CA"
	mkca rogue-ca "attest test admin CA"
	sign server-ca server localhost \
		"basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1${PKI_SERVER_SAN:+,$PKI_SERVER_SAN}\n"
	sign admin-ca admin admin "$client_ext"
	sign rogue-ca rogue admin "$client_ext"
	;;
client)
	[ $# -eq 4 ] || usage
	[ -f "$dir/$3.pem" ] || { echo "pki.sh: no CA $dir/$3.pem" >&2; exit 1; }
	sign "$3" "$4" "$4" "$client_ext"
	;;
*)
	usage
	;;
esac
