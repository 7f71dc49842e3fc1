/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tpm_ek.h - endorsement key certificates: chain validation against a
 * directory of trusted TPM-vendor CA certificates, and the binding of a
 * certificate to the EK public area the TPM reports.
 */
#ifndef ATTEST_TPM_EK_H
#define ATTEST_TPM_EK_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "attest/tpm_key.h"

/* Cap on an EK certificate (DER) and on the CA certificates loaded. */
#define ATT_EK_CERT_MAX	    8192
#define ATT_EK_CA_MAX_CERTS 256

/* Intermediate CAs allowed between an EK certificate and its root. */
#define ATT_EK_CHAIN_DEPTH 4

/* Trusted TPM-vendor CAs (roots and intermediates). */
struct att_ek_ca;

/*
 * Loads every PEM (.pem/.crt, one or more certificates each) and DER
 * (.der/.cer) file of dir. A chain must end at a self-signed certificate
 * from this directory; intermediates may be in it too.
 */
int att_ek_ca_load(const char *dir, struct att_ek_ca **out);
void att_ek_ca_free(struct att_ek_ca *ca);

/*
 * Parses a DER EK certificate as read from NV: trailing bytes are allowed
 * only when they are zero padding. ATT_E_FORMAT otherwise.
 */
int att_ek_cert_parse(const uint8_t *der, size_t len, X509 **out);

/*
 * Validates cert against ca (intermediates: extra untrusted certificates
 * sent by the agent, may be NULL) at the current time. ATT_OK, or
 * ATT_E_VERIFY with a static reason in *why (may be NULL): unknown CA,
 * self-signed, expired, bad signature, weak key (RSA < 2048 bits, EC
 * < 256), a CA certificate as EK certificate, an EKU extension
 * without tcg-kp-EKCertificate (2.23.133.8.1), or more than
 * ATT_EK_CHAIN_DEPTH intermediates.
 */
int att_ek_cert_verify(const struct att_ek_ca *ca, X509 *cert,
		       STACK_OF(X509) * intermediates, const char **why);

/*
 * Checks that cert certifies the key ek (the EK's TPM2B_PUBLIC).
 * ATT_E_VERIFY when the public keys differ.
 */
int att_ek_cert_matches(X509 *cert, const struct att_tpm_key *ek);

#endif
