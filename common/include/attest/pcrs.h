/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pcrs.h - a set of PCR values by bank and index, and the readers of the
 * PCR files people have: evmctl's "PCR-NN: <hex>" lines (one bank a file),
 * tpm2_pcrread's YAML, and JSON {"sha256": {"10": "<hex>"}}.
 */
#ifndef ATTEST_PCRS_H
#define ATTEST_PCRS_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"

#define ATT_PCR_COUNT 24

struct att_pcrs {
	uint32_t mask[ATT_HASH_COUNT]; /* bit i: PCR i of that bank is set */
	uint8_t val[ATT_HASH_COUNT][ATT_PCR_COUNT][ATT_DIGEST_MAX];
};

void att_pcrs_clear(struct att_pcrs *s);
int att_pcrs_set(struct att_pcrs *s, enum att_hash bank, unsigned int pcr,
		 const uint8_t *v, size_t len);
/* NULL when that PCR is not in the set. */
const uint8_t *att_pcrs_get(const struct att_pcrs *s, enum att_hash bank,
			    unsigned int pcr);

/*
 * Parses one bank's "PCR-NN: <hex>" lines (evmctl's --pcrs files; blank
 * lines and '#' comments allowed). bank NONE: taken from the hex length
 * (40 -> sha1, 64 -> sha256, 96 -> sha384, 128 -> sha512).
 */
int att_pcrs_parse_lines(struct att_pcrs *s, enum att_hash bank,
			 const char *text, size_t len, char *err,
			 size_t errlen);
/* {"sha256": {"10": "<hex>", ...}, ...} */
int att_pcrs_parse_json(struct att_pcrs *s, const char *text, size_t len,
			char *err, size_t errlen);
/* tpm2_pcrread output: "  sha256:\n    10: 0xHEX\n" */
int att_pcrs_parse_yaml(struct att_pcrs *s, const char *text, size_t len,
			char *err, size_t errlen);
/* Detects which of the three a text is and parses it. */
int att_pcrs_parse_any(struct att_pcrs *s, enum att_hash bank, const char *text,
		       size_t len, char *err, size_t errlen);

#endif
