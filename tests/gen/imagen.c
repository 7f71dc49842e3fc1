// SPDX-License-Identifier: Apache-2.0
/*
 * imagen.c - att-imagen: writes a deterministic IMA measurement list of a
 * made-up host, the PCR values a TPM would hold for it, and a whitelist.
 *
 * The template data and the PCR extends are computed here with OpenSSL
 * calls of their own (not libattest's replay), so that the tests compare
 * two independent computations, and evmctl is a third.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "attest/buf.h"
#include "attest/codec.h"

struct gen {
	unsigned long n, violations_every, seed, unknown_at, pcr, paths;
	const char *tmpl; /* ima-ng, ima-sig, ima, ima-buf, mixed */
	int ascii, legacy_rule;
	FILE *list, *wl;
	uint8_t pcr1[20], pcr256[32];		/* the list's PCR */
	uint8_t boot1[10][20], boot256[10][32]; /* PCRs 0-9 */
	uint64_t rng;
	int first_wl;
	struct att_buf bufs; /* ima-buf digests for the whitelist */
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

static void hash(const char *alg, const void *p, size_t n, uint8_t *out)
{
	unsigned int len;

	EVP_Digest(p, n, out, &len, EVP_get_digestbyname(alg), NULL);
}

static void extend(const char *alg, uint8_t *pcr, const uint8_t *d, size_t n)
{
	uint8_t t[128];

	memcpy(t, pcr, n);
	memcpy(t + n, d, n);
	hash(alg, t, 2 * n, pcr);
}

static void put32(struct att_buf *b, uint32_t v)
{
	att_buf_append_u32le(b, v);
}

static void field(struct att_buf *b, const void *p, size_t n)
{
	put32(b, (uint32_t)n);
	att_buf_append(b, p, n);
}

static void dng(struct att_buf *b, const char *alg, const uint8_t *d, size_t n)
{
	struct att_buf f;

	att_buf_init(&f, 0);
	att_buf_append(&f, alg, strlen(alg));
	att_buf_append(&f, ":", 2); /* ':' and NUL */
	att_buf_append(&f, d, n);
	field(b, f.data, f.len);
	att_buf_release(&f);
}

static void hexout(FILE *f, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

static void wl_add(struct gen *g, const char *path, const uint8_t *d, size_t n)
{
	if (!g->wl)
		return;
	fprintf(g->wl, "%s\n    \"%s\": [\"", g->first_wl ? "" : ",", path);
	hexout(g->wl, d, n);
	fprintf(g->wl, "\"]");
	g->first_wl = 0;
}

/* Writes one entry: template data tdata (fields with lengths). */
static void emit(struct gen *g, const char *tname, const struct att_buf *td,
		 int violation, const char *ascii_fields)
{
	uint8_t t1[20], t256[32], ff[32];
	uint32_t pcr = (uint32_t)g->pcr;

	if (violation) {
		memset(t1, 0, 20);
		memset(ff, 0xff, 32);
		extend("sha1", g->pcr1, ff, 20);
		if (g->legacy_rule) {
			memset(ff + 20, 0, 12);
			extend("sha256", g->pcr256, ff, 32);
		} else {
			extend("sha256", g->pcr256, ff, 32);
		}
	} else {
		hash("sha1", td->data, td->len, t1);
		hash("sha256", td->data, td->len, t256);
		extend("sha1", g->pcr1, t1, 20);
		if (g->legacy_rule) {
			memset(t256, 0, 32);
			memcpy(t256, t1, 20);
		}
		extend("sha256", g->pcr256, t256, 32);
	}
	if (g->ascii) {
		fprintf(g->list, "%2u ", pcr);
		hexout(g->list, t1, 20);
		fprintf(g->list, " %s %s\n", tname, ascii_fields);
		return;
	}
	fwrite(&pcr, 4, 1, g->list);
	fwrite(t1, 20, 1, g->list);
	{
		uint32_t nl = (uint32_t)strlen(tname);

		fwrite(&nl, 4, 1, g->list);
		fwrite(tname, nl, 1, g->list);
	}
	if (strcmp(tname, "ima")) {
		uint32_t dl = (uint32_t)td->len;

		fwrite(&dl, 4, 1, g->list);
		fwrite(td->data, td->len, 1, g->list);
	} else {
		/* digest[20] || u32 len || name, from the padded input */
		uint32_t nl = (uint32_t)strlen((const char *)td->data + 20);

		fwrite(td->data, 20, 1, g->list);
		fwrite(&nl, 4, 1, g->list);
		fwrite(td->data + 20, nl, 1, g->list);
	}
}

static void entry_boot_aggregate(struct gen *g)
{
	struct att_buf td;
	uint8_t d[32];
	char txt[200], hex[65];
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int i;

	if (!strcmp(g->tmpl, "ima")) {
		/* Legacy template: SHA-1 over PCRs 0-7 of the sha1 bank. */
		uint8_t in[20 + 256] = {0};

		EVP_DigestInit_ex(c, EVP_sha1(), NULL);
		for (i = 0; i < 8; i++)
			EVP_DigestUpdate(c, g->boot1[i], 20);
		EVP_DigestFinal_ex(c, in, NULL);
		EVP_MD_CTX_free(c);
		memcpy(in + 20, "boot_aggregate", 14);
		att_buf_init(&td, 0);
		att_buf_append(&td, in, sizeof(in));
		att_hex_encode(in, 20, hex);
		snprintf(txt, sizeof(txt), "%s boot_aggregate", hex);
		emit(g, "ima", &td, 0, txt);
		att_buf_release(&td);
		return;
	}
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	for (i = 0; i < 10; i++)
		EVP_DigestUpdate(c, g->boot256[i], 32);
	EVP_DigestFinal_ex(c, d, NULL);
	EVP_MD_CTX_free(c);
	att_buf_init(&td, 0);
	dng(&td, "sha256", d, 32);
	field(&td, "boot_aggregate", 15);
	att_hex_encode(d, 32, hex);
	snprintf(txt, sizeof(txt), "sha256:%s boot_aggregate", hex);
	emit(g, "ima-ng", &td, 0, txt);
	att_buf_release(&td);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void make_path(struct gen *g, unsigned long i, char *p, size_t n)
{
	static const char *const dirs[] = {
		"/usr/bin",    "/usr/lib/x86_64-linux-gnu",
		"/usr/sbin",   "/usr/lib/modules/6.1.0",
		"/etc/init.d", "/opt/app dir"};

	uint64_t tag = g->paths ? mix(i ^ g->seed) : rnd(g);

	snprintf(p, n, "%s/file-%lu-%04llx", dirs[i % 6], i,
		 (unsigned long long)(tag & 0xffff));
}

static void entry_file(struct gen *g, unsigned long i)
{
	char path[256], txt[512], hex[65];
	struct att_buf td;
	const char *t = g->tmpl;
	uint8_t content[16], d[32];
	uint64_t r = rnd(g);
	unsigned long slot = i;

	/* With --paths K the host has K files, measured again and again. */
	if (g->paths) {
		i = (i - 1) % g->paths + 1;
		r = mix(i + 0x51ed);
	}

	if (!strcmp(t, "mixed")) {
		static const char *const ts[] = {"ima-ng", "ima-sig", "ima-ng",
						 "ima-buf"};

		t = ts[i % 4];
	}
	make_path(g, i, path, sizeof(path));
	memcpy(content, &r, 8);
	memcpy(content + 8, &i, 8);
	att_buf_init(&td, 0);
	if (g->violations_every && i % g->violations_every == 0) {
		memset(d, 0, 32);
		dng(&td, "sha256", d, 32);
		field(&td, path, strlen(path) + 1);
		if (!strcmp(t, "ima-sig"))
			field(&td, "", 0);
		att_hex_encode(d, 32, hex);
		snprintf(txt, sizeof(txt), "sha256:%s %s%s", hex, path,
			 !strcmp(t, "ima-sig") ? " " : "");
		emit(g, strcmp(t, "ima-buf") && strcmp(t, "ima") ? t : "ima-ng",
		     &td, 1, txt);
		att_buf_release(&td);
		return;
	}
	if (!strcmp(t, "ima")) {
		uint8_t in[20 + 256] = {0};
		struct att_buf pad;

		hash("sha1", content, sizeof(content), in);
		memcpy(in + 20, path, strlen(path));
		att_buf_init(&pad, 0);
		att_buf_append(&pad, in, sizeof(in));
		att_hex_encode(in, 20, hex);
		snprintf(txt, sizeof(txt), "%s %s", hex, path);
		if (i != g->unknown_at && slot == i)
			wl_add(g, path, in, 20);
		emit(g, "ima", &pad, 0, txt);
		att_buf_release(&pad);
		att_buf_release(&td);
		return;
	}
	hash("sha256", content, sizeof(content), d);
	att_hex_encode(d, 32, hex);
	dng(&td, "sha256", d, 32);
	if (!strcmp(t, "ima-buf")) {
		snprintf(path, sizeof(path), "kexec-cmdline");
		field(&td, path, strlen(path) + 1);
		field(&td, content, sizeof(content));
		{
			char bh[33];

			att_hex_encode(content, sizeof(content), bh);
			snprintf(txt, sizeof(txt), "sha256:%s %s %s", hex, path,
				 bh);
		}
	} else {
		field(&td, path, strlen(path) + 1);
		if (!strcmp(t, "ima-sig"))
			field(&td, "", 0);
		snprintf(txt, sizeof(txt), "sha256:%s %s%s", hex, path,
			 !strcmp(t, "ima-sig") ? " " : "");
	}
	if (i != g->unknown_at && strcmp(t, "ima-buf") && slot == i)
		wl_add(g, path, d, 32);
	if (i != g->unknown_at && !strcmp(t, "ima-buf") && slot == i)
		att_buf_printf(&g->bufs, "%s\"%s\"", g->bufs.len ? ", " : "",
			       hex);
	emit(g, t, &td, 0, txt);
	att_buf_release(&td);
}

static int write_pcrs(struct gen *g, const char *prefix)
{
	char name[4096];
	FILE *f;
	int i, b;

	for (b = 0; b < 2; b++) {
		snprintf(name, sizeof(name), "%s-%s.txt", prefix,
			 b ? "sha256" : "sha1");
		f = fopen(name, "w");
		if (!f)
			return -1;
		for (i = 0; i < 10; i++) {
			fprintf(f, "PCR-%02d: ", i);
			hexout(f, b ? g->boot256[i] : g->boot1[i], b ? 32 : 20);
			fprintf(f, "\n");
		}
		fprintf(f, "PCR-%02lu: ", g->pcr);
		hexout(f, b ? g->pcr256 : g->pcr1, b ? 32 : 20);
		fprintf(f, "\n");
		if (fclose(f))
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: att-imagen -o LIST [-n ENTRIES] [--seed S] "
	      "[--template ima-ng|ima-sig|ima|ima-buf|mixed]\n"
	      "       [--ascii] [--violation-every K] [--unknown-at I] "
	      "[--legacy-rule]\n"
	      "       [--pcr N] [--pcrs PREFIX] [--whitelist FILE] "
	      "[--paths K]\n"
	      "Writes a deterministic IMA list; PREFIX-sha1.txt and "
	      "PREFIX-sha256.txt get the PCR values\n"
	      "(evmctl 'PCR-NN: hex' lines, PCRs 0-9 and the list's PCR); "
	      "FILE gets a JSON whitelist of\n"
	      "every file except entry I (--unknown-at). --paths K: the host "
	      "has K files, measured\n"
	      "over and over, so the whitelist stays K paths long.\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"entries", required_argument, NULL, 'n'},
		{"seed", required_argument, NULL, 's'},
		{"template", required_argument, NULL, 't'},
		{"ascii", no_argument, NULL, 'a'},
		{"violation-every", required_argument, NULL, 'v'},
		{"unknown-at", required_argument, NULL, 'u'},
		{"legacy-rule", no_argument, NULL, 'L'},
		{"pcr", required_argument, NULL, 'p'},
		{"pcrs", required_argument, NULL, 'P'},
		{"whitelist", required_argument, NULL, 'w'},
		{"paths", required_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct gen g = {.n = 100,
			.seed = 1,
			.tmpl = "ima-ng",
			.pcr = 10,
			.unknown_at = (unsigned long)-1,
			.first_wl = 1};
	const char *out = NULL, *pcrs = NULL, *wl = NULL;
	unsigned long i;
	int c, b;

	while ((c = getopt_long(argc, argv, "n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			g.n = strtoul(optarg, NULL, 10);
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			g.seed = strtoul(optarg, NULL, 10);
			break;
		case 't':
			g.tmpl = optarg;
			break;
		case 'a':
			g.ascii = 1;
			break;
		case 'v':
			g.violations_every = strtoul(optarg, NULL, 10);
			break;
		case 'u':
			g.unknown_at = strtoul(optarg, NULL, 10);
			break;
		case 'L':
			g.legacy_rule = 1;
			break;
		case 'p':
			g.pcr = strtoul(optarg, NULL, 10);
			break;
		case 'P':
			pcrs = optarg;
			break;
		case 'w':
			wl = optarg;
			break;
		case 'K':
			g.paths = strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || g.pcr > 23 || g.pcr < 10) {
		usage(stderr);
		return 2;
	}
	att_buf_init(&g.bufs, 0);
	g.rng = 0x9e3779b97f4a7c15ULL ^ (g.seed * 0x100000001b3ULL);
	for (i = 0; i < 10; i++)
		for (b = 0; b < 32; b++) {
			uint8_t v = (uint8_t)rnd(&g);

			if (b < 20)
				g.boot1[i][b] = v;
			g.boot256[i][b] = v;
		}
	g.list = fopen(out, "wb");
	if (!g.list) {
		perror(out);
		return 2;
	}
	if (wl) {
		g.wl = fopen(wl, "w");
		if (!g.wl) {
			perror(wl);
			return 2;
		}
		fprintf(g.wl, "{\n  \"meta\": {\"version\": 1, \"generator\": "
			      "\"att-imagen\"},\n  \"digests\": {");
	}
	if (g.n)
		entry_boot_aggregate(&g);
	for (i = 1; i < g.n; i++)
		entry_file(&g, i);
	if (fclose(g.list)) {
		perror(out);
		return 2;
	}
	if (g.wl) {
		att_buf_cstr(&g.bufs);
		fprintf(g.wl,
			"\n  },\n  \"ima-buf\": {\"kexec-cmdline\": "
			"[%s]},\n  \"ima\": {\"ignored_keyrings\": []}\n}\n",
			g.bufs.len ? (char *)g.bufs.data : "");
		att_buf_release(&g.bufs);
		if (fclose(g.wl)) {
			perror(wl);
			return 2;
		}
	}
	if (pcrs && write_pcrs(&g, pcrs)) {
		perror(pcrs);
		return 2;
	}
	return 0;
}
