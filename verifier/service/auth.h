/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auth.h - who is on the other end of a TLS connection: the client
 * certificate chain is verified (OpenSSL, purpose TLS client) against the
 * admin CA and then the agent CA, on every request. An agent's id is its
 * certificate's common name; its fingerprint binds it to one enrollment.
 */
#ifndef ATTEST_VERIFIER_AUTH_H
#define ATTEST_VERIFIER_AUTH_H

#include <stddef.h>
#include <stdint.h>

enum ver_role {
	VER_ROLE_NONE = 0, /* no or unknown certificate */
	VER_ROLE_AGENT = 1,
	VER_ROLE_ADMIN = 2,
};

struct ver_peer {
	enum ver_role role;
	char id[65];  /* agent id (CN) for agents */
	char fpr[65]; /* SHA-256 of the leaf certificate, hex */
};

struct ver_auth;

int ver_auth_new(const char *admin_ca_pem, const char *agent_ca_pem,
		 struct ver_auth **out);
void ver_auth_free(struct ver_auth *a);

/*
 * Classifies a DER chain (leaf first). Never fails open: anything that
 * does not verify is VER_ROLE_NONE.
 */
void ver_auth_classify(struct ver_auth *a, const uint8_t *const *der,
		       const size_t *len, unsigned int n, struct ver_peer *p);

/* Agent ids: 1-64 of [A-Za-z0-9._-], not starting with '.' or '-'. */
int ver_id_valid(const char *id);

#endif
