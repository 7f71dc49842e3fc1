// SPDX-License-Identifier: Apache-2.0
/*
 * eventlog.c - att-eventlog LOG: replays a TPM event log with libattest
 * and prints the PCR values as tpm2_pcrread/tpm2_eventlog YAML
 * ("sha256:\n  0 : 0xHEX"), for cross-checks in tests; exit 2 with the
 * parser's message on bad input.
 */
#include <stdio.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/uefi.h"

int main(int argc, char **argv)
{
	struct att_uefi_info info;
	struct att_pcrs p;
	struct att_buf b;
	char err[200];
	unsigned int i, k, pcr;

	if (argc != 2) {
		fprintf(stderr, "usage: att-eventlog LOG\n");
		return 2;
	}
	att_buf_init(&b, 0);
	if (att_buf_read_file(&b, argv[1], 64u << 20)) {
		fprintf(stderr, "att-eventlog: cannot read %s\n", argv[1]);
		return 2;
	}
	if (att_uefi_replay(b.data, b.len, NULL, &p, &info, err, sizeof(err))) {
		fprintf(stderr, "att-eventlog: %s: %s\n", argv[1], err);
		att_buf_release(&b);
		return 2;
	}
	for (i = 0; i < info.nalgs; i++) {
		enum att_hash h = info.algs[i];

		printf("%s:\n", att_hash_name(h));
		for (pcr = 0; pcr < ATT_PCR_COUNT; pcr++) {
			const uint8_t *v = att_pcrs_get(&p, h, pcr);

			if (!v)
				continue;
			printf("  %u : 0x", pcr);
			for (k = 0; k < att_hash_size(h); k++)
				printf("%02X", v[k]);
			printf("\n");
		}
	}
	att_buf_release(&b);
	return 0;
}
