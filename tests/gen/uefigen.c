// SPDX-License-Identifier: Apache-2.0
/*
 * uefigen.c - att-uefigen: writes a deterministic TPM event log (crypto
 * agile with sha1+sha256, or SHA-1 only) and the PCR values it replays to,
 * computed here with OpenSSL (not libattest), in tpm2_pcrread's YAML.
 *
 *   att-uefigen -o LOG [-n EVENTS] [--seed S] [--locality L] [--sha1-only]
 *               [--no-no-action] [--pcrs FILE]
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static FILE *out;

static void u32(uint32_t v)
{
	fwrite(&v, 4, 1, out); /* little-endian hosts only (x86, arm64) */
}

static void u16(uint16_t v)
{
	fwrite(&v, 2, 1, out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"seed", required_argument, NULL, 's'},
		{"locality", required_argument, NULL, 'l'},
		{"sha1-only", no_argument, NULL, '1'},
		{"pcrs", required_argument, NULL, 'p'},
		{"no-no-action", no_argument, NULL, 'N'},
		{NULL, 0, NULL, 0},
	};
	unsigned long n = 40, seed = 1, loc = 0, i;
	const char *path = NULL, *pcrs = NULL;
	uint8_t p1[24][20] = {{0}}, p256[24][32] = {{0}};
	uint32_t used = 0;
	uint64_t rng;
	int c, sha1_only = 0, no_noaction = 0, b;

	while ((c = getopt_long(argc, argv, "o:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			path = optarg;
			break;
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'l':
			loc = strtoul(optarg, NULL, 10);
			break;
		case '1':
			sha1_only = 1;
			break;
		case 'p':
			pcrs = optarg;
			break;
		case 'N':
			/* tpm2_eventlog 5.4 wrongly extends EV_NO_ACTION */
			no_noaction = 1;
			break;
		default:
			return 2;
		}
	}
	if (!path)
		return 2;
	out = fopen(path, "wb");
	if (!out)
		return 2;
	rng = 0x243f6a8885a308d3ULL ^ seed;
	p1[0][19] = (uint8_t)loc;
	p256[0][31] = (uint8_t)loc;
	if (!sha1_only) {
		static const char spec[16] = "Spec ID Event03";
		static const char sl[16] = "StartupLocality";
		uint8_t z[20] = {0};

		/* header: TCG_PCR_EVENT with the Spec ID event */
		u32(0);
		u32(3);
		fwrite(z, 20, 1, out);
		u32(16 + 4 + 4 + 4 + 2 * 4 + 1);
		fwrite(spec, 16, 1, out);
		u32(0);	       /* platform class */
		fputc(0, out); /* minor */
		fputc(2, out); /* major */
		fputc(0, out); /* errata */
		fputc(2, out); /* uintn size */
		u32(2);	       /* algorithms */
		u16(0x0004);
		u16(20);
		u16(0x000b);
		u16(32);
		fputc(0, out); /* vendor info */
		if (loc) {
			/* EV_NO_ACTION StartupLocality, never extended */
			u32(0);
			u32(3);
			u32(2);
			u16(0x0004);
			fwrite(z, 20, 1, out);
			u16(0x000b);
			fwrite(z, 20, 1, out);
			fwrite(z, 12, 1, out);
			u32(17);
			fwrite(sl, 16, 1, out);
			fputc((int)loc, out);
		}
	}
	for (i = 0; i < n; i++) {
		/* Types whose data tpm2_eventlog does not try to decode. */
		static const uint32_t types[] = {0x1, 0xd, 0x1, 0x3,
						 0x1, 0xd, 0x1};
		uint32_t pcr = (uint32_t)(i % 8), type = types[i % 7];

		if (no_noaction && type == 3)
			type = 5; /* EV_ACTION */
		uint8_t data[64], d1[20], d256[32], t[64];
		unsigned int len, dl = 8 + (unsigned int)(i % 50);

		for (b = 0; b < (int)dl; b++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			data[b] = (uint8_t)rng;
		}
		EVP_Digest(data, dl, d1, &len, EVP_sha1(), NULL);
		EVP_Digest(data, dl, d256, &len, EVP_sha256(), NULL);
		if (type != 3) {
			memcpy(t, p1[pcr], 20);
			memcpy(t + 20, d1, 20);
			EVP_Digest(t, 40, p1[pcr], &len, EVP_sha1(), NULL);
			memcpy(t, p256[pcr], 32);
			memcpy(t + 32, d256, 32);
			EVP_Digest(t, 64, p256[pcr], &len, EVP_sha256(), NULL);
			used |= 1u << pcr;
		}
		u32(pcr);
		u32(type);
		if (sha1_only) {
			fwrite(d1, 20, 1, out);
		} else {
			u32(2);
			u16(0x0004);
			fwrite(d1, 20, 1, out);
			u16(0x000b);
			fwrite(d256, 32, 1, out);
		}
		u32(dl);
		fwrite(data, dl, 1, out);
	}
	if (fclose(out))
		return 2;
	if (pcrs) {
		FILE *f = fopen(pcrs, "w");

		if (!f)
			return 2;
		for (b = 0; b < (sha1_only ? 1 : 2); b++) {
			fprintf(f, "%s:\n", b ? "sha256" : "sha1");
			for (i = 0; i < 24; i++) {
				unsigned int k, sz = b ? 32 : 20;

				if (!(used & (1u << i)))
					continue;
				fprintf(f, "  %lu : 0x", i);
				for (k = 0; k < sz; k++)
					fprintf(f, "%02X",
						b ? p256[i][k] : p1[i][k]);
				fprintf(f, "\n");
			}
		}
		if (fclose(f))
			return 2;
	}
	return 0;
}
