/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ca.h - the verifier's agent CA: issues an agent its mutual-TLS client
 * certificate (CN = agent id, clientAuth) from a CSR once enrollment has
 * proven its AK.
 */
#ifndef ATTEST_VERIFIER_CA_H
#define ATTEST_VERIFIER_CA_H

#include <stddef.h>

struct att_buf;
struct ver_ca;

int ver_ca_load(const char *cert_pem, const char *key_pem, struct ver_ca **out);
void ver_ca_free(struct ver_ca *ca);

/*
 * Checks the CSR (PEM, self-signature valid, EC >= 256 bits or RSA >=
 * 2048) and issues a certificate for id valid for days. The CSR's subject
 * and extensions are ignored. pem gets the certificate, fpr (65 bytes) the
 * SHA-256 of its DER in hex. ATT_E_FORMAT / ATT_E_VERIFY with a reason in
 * *why for a bad CSR.
 */
int ver_ca_issue(struct ver_ca *ca, const char *csr_pem, size_t csr_len,
		 const char *id, unsigned int days, struct att_buf *pem,
		 char *fpr, const char **why);

#endif
