// SPDX-License-Identifier: Apache-2.0
/*
 * evmhmac.c - the label HMAC computed in userspace, from the same
 * definition as kernel/evm.c (docs/evm.md): `slimctl evm-hmac`.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "attest/err.h"
#include "slimctl.h"

static const char *const slc_evm_names[] = {
	SLC_XATTR, "security.ima", "security.capability", "security.selinux"};

#define SLC_EVM_VALUE_MAX 4096

static void slc_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int slc_evm_calc(const uint8_t key[SLC_EVM_KEY_LEN],
		 const struct slc_evm_input *in, uint8_t out[32])
{
	uint8_t meta[8 + 4 + 4 + 4 + 2 + 16], len[4];
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	size_t outl = 0;
	int rc = ATT_E_CRYPTO;

	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return ATT_E_CRYPTO;
	ctx = EVP_MAC_CTX_new(mac);
	params[0] = OSSL_PARAM_construct_utf8_string("digest", "SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!ctx || !EVP_MAC_init(ctx, key, SLC_EVM_KEY_LEN, params))
		goto out;
	for (size_t i = 0; i < SLC_EVM_NXATTR; i++) {
		if (!in->present[i])
			continue;
		slc_le(len, in->len[i], 4);
		if (!EVP_MAC_update(ctx, (const uint8_t *)slc_evm_names[i],
				    strlen(slc_evm_names[i]) + 1) ||
		    !EVP_MAC_update(ctx, len, 4) ||
		    !EVP_MAC_update(ctx, in->value[i], in->len[i]))
			goto out;
	}
	slc_le(meta, in->ino, 8);
	slc_le(meta + 8, in->generation, 4);
	slc_le(meta + 12, in->uid, 4);
	slc_le(meta + 16, in->gid, 4);
	slc_le(meta + 20, in->mode, 2);
	memcpy(meta + 22, in->uuid, 16);
	if (!EVP_MAC_update(ctx, meta, sizeof(meta)) ||
	    !EVP_MAC_final(ctx, out, &outl, 32) || outl != 32)
		goto out;
	rc = ATT_OK;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

void slc_evm_input_free(struct slc_evm_input *in)
{
	for (size_t i = 0; i < SLC_EVM_NXATTR; i++) {
		free(in->value[i]);
		in->value[i] = NULL;
	}
}

/*
 * The fs UUID of st_dev from the module's status text (its lines
 * "watched TYPE ID MAJOR:MINOR UUID").
 */
static int slc_uuid_from_status(const char *status, dev_t dev, uint8_t uuid[16])
{
	char want[32];

	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	for (const char *line = status; line && *line;) {
		char type[64], id[64], devs[32], u[64];
		const char *nl = strchr(line, '\n');

		if (sscanf(line, "watched %63s %63s %31s %63s", type, id, devs,
			   u) == 4 &&
		    !strcmp(devs, want))
			return slc_parse_uuid(u, uuid);
		line = nl ? nl + 1 : NULL;
	}
	return ATT_E_NOT_FOUND;
}

/* a decimal or 0x number no larger than max */
static int slc_parse_num(const char *s, unsigned long long max, long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max)
		return ATT_E_FORMAT;
	*out = (long long)v;
	return ATT_OK;
}

int slc_parse_uuid(const char *s, uint8_t uuid[16])
{
	size_t n = 0;

	for (; *s && n < 32; s++) {
		int v;

		if (*s == '-')
			continue;
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			v = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			v = *s - 'A' + 10;
		else
			return ATT_E_FORMAT;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(v << 4);
		else
			uuid[n / 2] |= (uint8_t)v;
		n++;
	}
	return n == 32 && !*s ? ATT_OK : ATT_E_FORMAT;
}

/* reads the xattrs and metadata of path; uuid/generation left to caller */
int slc_evm_input_from_file(const char *path, struct slc_evm_input *in)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	if (lstat(path, &st)) {
		fprintf(stderr, "slimctl: %s: %s\n", path, strerror(errno));
		return ATT_E_IO;
	}
	for (size_t i = 0; i < SLC_EVM_NXATTR; i++) {
		uint8_t *buf = malloc(SLC_EVM_VALUE_MAX);
		ssize_t n;

		if (!buf) {
			slc_evm_input_free(in);
			return ATT_E_NOMEM;
		}
		n = lgetxattr(path, slc_evm_names[i], buf, SLC_EVM_VALUE_MAX);
		if (n < 0) {
			free(buf);
			if (errno == ENODATA || errno == ENOTSUP)
				continue;
			fprintf(stderr, "slimctl: %s: %s: %s\n", path,
				slc_evm_names[i], strerror(errno));
			slc_evm_input_free(in);
			return ATT_E_IO;
		}
		in->present[i] = 1;
		in->value[i] = buf;
		in->len[i] = (size_t)n;
	}
	in->ino = st.st_ino;
	in->uid = st.st_uid;
	in->gid = st.st_gid;
	in->mode = st.st_mode;
	in->dev = st.st_dev;
	return ATT_OK;
}

int slc_read_key_file(const char *file, uint8_t key[SLC_EVM_KEY_LEN])
{
	uint8_t extra;
	size_t n;
	FILE *f = fopen(file, "rb");

	if (!f) {
		fprintf(stderr, "slimctl: %s: %s\n", file, strerror(errno));
		return ATT_E_IO;
	}
	n = fread(key, 1, SLC_EVM_KEY_LEN, f);
	if (n != SLC_EVM_KEY_LEN || fread(&extra, 1, 1, f) != 0) {
		fprintf(stderr,
			"slimctl: %s: the key must be exactly %d bytes\n", file,
			SLC_EVM_KEY_LEN);
		fclose(f);
		OPENSSL_cleanse(key, SLC_EVM_KEY_LEN);
		return ATT_E_FORMAT;
	}
	fclose(f);
	return ATT_OK;
}

static void slc_evm_hmac_usage(FILE *f)
{
	fputs("usage: slimctl evm-hmac --key-file K [--uuid UUID] "
	      "[--generation N] [--write] FILE...\n"
	      "       slimctl evm-hmac --key-file K --uuid UUID --generation N "
	      "--ino N --out VALUE FILE\n"
	      "  (the second form: for a file copied into an image whose "
	      "inode number differs;\n"
	      "  VALUE gets the 33 raw bytes of security.slim.evm)\n"
	      "  Prints '<file><TAB>02<hmac hex><TAB>stored: "
	      "match|differs|absent'. The file system UUID comes from\n"
	      "  --uuid or from the module's status; the generation from "
	      "FS_IOC_GETVERSION or --generation.\n"
	      "  --write sets security.slim.evm (offline labeling). Exit 1 "
	      "if a stored HMAC differs or a file failed.\n",
	      f);
}

int slc_cmd_evm_hmac(int argc, char **argv)
{
	const char *keyfile = NULL, *uuid_s = NULL, *outfile = NULL;
	uint8_t key[SLC_EVM_KEY_LEN];
	long long gen = -1, ino = -1;
	int write_it = 0, bad = 0, first = 0;
	uint8_t uuid_opt[16];
	char *status = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--key-file") && i + 1 < argc) {
			keyfile = argv[++i];
		} else if (!strcmp(argv[i], "--uuid") && i + 1 < argc) {
			uuid_s = argv[++i];
		} else if (!strcmp(argv[i], "--generation") && i + 1 < argc) {
			if (slc_parse_num(argv[++i], UINT32_MAX, &gen) !=
			    ATT_OK) {
				slc_evm_hmac_usage(stderr);
				return 2;
			}
		} else if (!strcmp(argv[i], "--ino") && i + 1 < argc) {
			if (slc_parse_num(argv[++i], INT64_MAX, &ino) !=
			    ATT_OK) {
				slc_evm_hmac_usage(stderr);
				return 2;
			}
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			outfile = argv[++i];
		} else if (!strcmp(argv[i], "--write")) {
			write_it = 1;
		} else if (!strcmp(argv[i], "--help")) {
			slc_evm_hmac_usage(stdout);
			return 0;
		} else if (argv[i][0] != '-') {
			first = i;
			break;
		} else {
			slc_evm_hmac_usage(stderr);
			return 2;
		}
	}
	if (!keyfile || !first ||
	    ((ino >= 0 || outfile) && first != argc - 1)) {
		slc_evm_hmac_usage(stderr);
		return 2;
	}
	if (uuid_s && slc_parse_uuid(uuid_s, uuid_opt) != ATT_OK) {
		fprintf(stderr, "slimctl: bad --uuid '%s'\n", uuid_s);
		return 2;
	}
	if (slc_read_key_file(keyfile, key) != ATT_OK)
		return 1;
	for (int i = first; i < argc; i++) {
		struct slc_evm_input in;
		uint8_t mac[33], stored[64];
		char hex[67];
		ssize_t n;
		int fd;

		if (slc_evm_input_from_file(argv[i], &in) != ATT_OK) {
			bad = 1;
			continue;
		}
		/* the module's status is read once, for the first file */
		if (!uuid_s && !status &&
		    slc_read_secfs("status", &status) != ATT_OK)
			status = NULL;
		if (uuid_s) {
			memcpy(in.uuid, uuid_opt, sizeof(in.uuid));
		} else if (!status || slc_uuid_from_status(status, in.dev,
							   in.uuid) != ATT_OK) {
			fprintf(stderr,
				"slimctl: %s: file system UUID unknown (no "
				"watched superblock %u:%u in the module's "
				"status): give --uuid\n",
				argv[i], major(in.dev), minor(in.dev));
			slc_evm_input_free(&in);
			bad = 1;
			continue;
		}
		if (gen >= 0) {
			in.generation = (uint32_t)gen;
		} else {
			unsigned int g = 0;

			fd = open(argv[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0 || ioctl(fd, FS_IOC_GETVERSION, &g)) {
				fprintf(stderr,
					"slimctl: %s: generation unknown (%s): "
					"give --generation\n",
					argv[i], strerror(errno));
				if (fd >= 0)
					close(fd);
				slc_evm_input_free(&in);
				bad = 1;
				continue;
			}
			close(fd);
			in.generation = g;
		}
		if (ino >= 0)
			in.ino = (uint64_t)ino;
		mac[0] = SLC_EVM_TYPE;
		if (slc_evm_calc(key, &in, mac + 1) != ATT_OK) {
			fprintf(stderr, "slimctl: %s: HMAC failed\n", argv[i]);
			slc_evm_input_free(&in);
			bad = 1;
			continue;
		}
		slc_evm_input_free(&in);
		for (int j = 0; j < 33; j++)
			snprintf(hex + 2 * j, 3, "%02x", mac[j]);
		if (outfile) {
			FILE *f = fopen(outfile, "wb");

			if (!f ||
			    fwrite(mac, 1, sizeof(mac), f) != sizeof(mac) ||
			    fclose(f)) {
				fprintf(stderr, "slimctl: %s: %s\n", outfile,
					strerror(errno));
				bad = 1;
				continue;
			}
		}
		if (write_it &&
		    lsetxattr(argv[i], SLC_EVM_XATTR, mac, sizeof(mac), 0)) {
			fprintf(stderr, "slimctl: %s: cannot set %s: %s\n",
				argv[i], SLC_EVM_XATTR, strerror(errno));
			bad = 1;
			continue;
		}
		n = lgetxattr(argv[i], SLC_EVM_XATTR, stored, sizeof(stored));
		printf("%s\t%s\tstored: %s\n", argv[i], hex,
		       n < 0				     ? "absent"
		       : n == 33 && !memcmp(stored, mac, 33) ? "match"
							     : "differs");
		if (n >= 0 && !(n == 33 && !memcmp(stored, mac, 33)))
			bad = 1;
	}
	OPENSSL_cleanse(key, sizeof(key));
	free(status);
	return bad;
}
