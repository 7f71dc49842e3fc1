// SPDX-License-Identifier: Apache-2.0
/*
 * uefi_vars.c - event data of a firmware log: UEFI_VARIABLE_DATA,
 * EFI_SIGNATURE_LIST / EFI_SIGNATURE_DATA, UEFI_IMAGE_LOAD_EVENT and its
 * device path (UEFI 2.10, TCG PC Client PFP 1.05). Little-endian.
 */
#include <stdio.h>
#include <string.h>

#include "attest/boot.h"
#include "attest/err.h"
#include "attest/rd.h"

#define SIGLIST_HEADER 28 /* type GUID, list size, header size, sig size */
#define DP_MEDIA       0x04
#define DP_MEDIA_FILE  0x04
#define DP_END	       0x7f

static int why_rc(char *why, size_t n, int rc, const char *what)
{
	snprintf(why, n, "%s", what);
	return rc;
}

void att_guid_format(const uint8_t g[ATT_GUID_LEN], char out[ATT_GUID_TEXT])
{
	snprintf(out, ATT_GUID_TEXT,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9],
		 g[10], g[11], g[12], g[13], g[14], g[15]);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int att_guid_parse(const char *s, uint8_t g[ATT_GUID_LEN])
{
	/* byte i of the text order goes to g[order[i]] */
	static const uint8_t order[16] = {3, 2, 1,  0,	5,  4,	7,  6,
					  8, 9, 10, 11, 12, 13, 14, 15};
	unsigned int i, k = 0;

	if (strlen(s) != ATT_GUID_TEXT - 1)
		return ATT_E_FORMAT;
	for (i = 0; i < ATT_GUID_TEXT - 1;) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return ATT_E_FORMAT;
			i++;
			continue;
		}
		hi = hexval(s[i]);
		lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return ATT_E_FORMAT;
		g[order[k++]] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return ATT_OK;
}

/* UTF-16LE code units to UTF-8; stops at a NUL when stop_nul is set. */
static int utf16_to_utf8(const uint8_t *p, size_t units, int stop_nul,
			 char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < units; i++) {
		uint32_t c = (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;

		if (c == 0) {
			if (stop_nul && i == units - 1)
				break;
			return ATT_E_FORMAT; /* NUL inside the name */
		}
		if (c >= 0xdc00 && c <= 0xdfff)
			return ATT_E_FORMAT; /* lone low surrogate */
		if (c >= 0xd800 && c <= 0xdbff) {
			uint32_t lo;

			if (i + 1 >= units)
				return ATT_E_FORMAT;
			lo = (uint32_t)p[2 * i + 2] | (uint32_t)p[2 * i + 3]
							      << 8;
			if (lo < 0xdc00 || lo > 0xdfff)
				return ATT_E_FORMAT;
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			i++;
		}
		if (outlen - o < 5)
			return ATT_E_TOO_BIG;
		if (c < 0x80) {
			out[o++] = (char)c;
		} else if (c < 0x800) {
			out[o++] = (char)(0xc0 | c >> 6);
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[o++] = (char)(0xe0 | c >> 12);
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		} else {
			out[o++] = (char)(0xf0 | c >> 18);
			out[o++] = (char)(0x80 | ((c >> 12) & 0x3f));
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[o++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[o] = '\0';
	return ATT_OK;
}

int att_uefi_var_parse(const uint8_t *p, size_t n, struct att_uefi_var *v,
		       char *why, size_t whylen)
{
	uint64_t name_len, data_len;
	const uint8_t *name;
	struct att_rd r;
	int rc;

	memset(v, 0, sizeof(*v));
	att_rd_init(&r, p, n);
	if (att_rd_bytes(&r, ATT_GUID_LEN, &v->guid))
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_VARIABLE_DATA: no room for the GUID");
	if (att_rd_u64le(&r, &name_len) || att_rd_u64le(&r, &data_len))
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_VARIABLE_DATA: lengths are cut short");
	if (!name_len || name_len > ATT_UEFI_NAME_MAX)
		return why_rc(why, whylen, ATT_E_TOO_BIG,
			      "UEFI_VARIABLE_DATA: name length not in 1..256");
	if (att_rd_left(&r) / 2 < name_len)
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_VARIABLE_DATA: name is cut short");
	att_rd_bytes(&r, (size_t)name_len * 2, &name);
	if (data_len > att_rd_left(&r))
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_VARIABLE_DATA: data is cut short");
	att_rd_bytes(&r, (size_t)data_len, &v->data);
	v->data_len = (size_t)data_len;
	if (att_rd_end(&r))
		return why_rc(why, whylen, ATT_E_TRAILING,
			      "UEFI_VARIABLE_DATA: bytes after the data");
	/* Some firmware counts a terminating NUL in the length. */
	rc = utf16_to_utf8(name, (size_t)name_len, 1, v->name, sizeof(v->name));
	if (rc || !v->name[0])
		return why_rc(why, whylen, ATT_E_FORMAT,
			      "UEFI_VARIABLE_DATA: name is not valid UTF-16");
	return ATT_OK;
}

static void sig_kind_of(const uint8_t type[ATT_GUID_LEN], int *kind)
{
	uint8_t x509[ATT_GUID_LEN], sha256[ATT_GUID_LEN];

	att_guid_parse(ATT_GUID_CERT_X509, x509);
	att_guid_parse(ATT_GUID_CERT_SHA256, sha256);
	if (!memcmp(type, x509, ATT_GUID_LEN))
		*kind = ATT_SIG_X509;
	else if (!memcmp(type, sha256, ATT_GUID_LEN))
		*kind = ATT_SIG_SHA256;
	else
		*kind = ATT_SIG_OTHER;
}

int att_efi_siglists_parse(const uint8_t *p, size_t n, att_sig_fn fn, void *arg,
			   char *why, size_t whylen)
{
	struct att_rd r;
	size_t count = 0;
	int rc;

	att_rd_init(&r, p, n);
	while (att_rd_left(&r)) {
		uint32_t list_size, hdr_size, sig_size;
		const uint8_t *type;
		size_t body, i;
		int kind;

		if (att_rd_left(&r) < SIGLIST_HEADER)
			return why_rc(why, whylen, ATT_E_TRUNCATED,
				      "EFI_SIGNATURE_LIST header is cut short");
		att_rd_bytes(&r, ATT_GUID_LEN, &type);
		att_rd_u32le(&r, &list_size);
		att_rd_u32le(&r, &hdr_size);
		att_rd_u32le(&r, &sig_size);
		if (list_size < SIGLIST_HEADER ||
		    list_size - SIGLIST_HEADER > att_rd_left(&r))
			return why_rc(why, whylen, ATT_E_TRUNCATED,
				      "EFI_SIGNATURE_LIST size past the data");
		body = list_size - SIGLIST_HEADER;
		if (hdr_size > body)
			return why_rc(why, whylen, ATT_E_FORMAT,
				      "EFI_SIGNATURE_LIST header size past "
				      "the list");
		body -= hdr_size;
		if (sig_size <= ATT_GUID_LEN || body % sig_size)
			return why_rc(why, whylen, ATT_E_FORMAT,
				      "EFI_SIGNATURE_LIST signature size does "
				      "not divide the list");
		sig_kind_of(type, &kind);
		if (kind == ATT_SIG_SHA256 &&
		    sig_size != ATT_GUID_LEN + ATT_BOOT_ID_LEN)
			return why_rc(why, whylen, ATT_E_FORMAT,
				      "EFI_CERT_SHA256 entry is not 48 bytes");
		att_rd_skip(&r, hdr_size);
		for (i = 0; i < body / sig_size; i++) {
			struct att_boot_sig s;
			const uint8_t *d;
			size_t dlen = sig_size - ATT_GUID_LEN;

			if (++count > ATT_BOOT_MAX_SIGS)
				return why_rc(why, whylen, ATT_E_TOO_BIG,
					      "more than 8192 signatures");
			memset(&s, 0, sizeof(s));
			s.kind = (uint8_t)kind;
			att_rd_copy(&r, s.owner, ATT_GUID_LEN);
			att_rd_bytes(&r, dlen, &d);
			if (kind == ATT_SIG_SHA256)
				memcpy(s.id, d, ATT_BOOT_ID_LEN);
			else if ((rc = att_digest(ATT_HASH_SHA256, d, dlen,
						  s.id)))
				return rc;
			if (fn && (rc = fn(&s, arg)))
				return rc;
		}
	}
	return ATT_OK;
}

/* The device path: nodes up to the end node, nothing after it. */
static int walk_device_path(const uint8_t *p, size_t n, char *path,
			    size_t pathlen, char *why, size_t whylen)
{
	struct att_rd r;

	path[0] = '\0';
	att_rd_init(&r, p, n);
	while (att_rd_left(&r)) {
		uint8_t type, sub;
		uint16_t len;
		const uint8_t *body;

		if (att_rd_u8(&r, &type) || att_rd_u8(&r, &sub) ||
		    att_rd_u16le(&r, &len))
			return why_rc(why, whylen, ATT_E_TRUNCATED,
				      "device path node header is cut short");
		if (len < 4 || len - 4u > att_rd_left(&r))
			return why_rc(why, whylen, ATT_E_TRUNCATED,
				      "device path node length past the data");
		att_rd_bytes(&r, len - 4u, &body);
		if (type == DP_END && sub == 0xff) {
			if (att_rd_left(&r))
				return why_rc(why, whylen, ATT_E_TRAILING,
					      "bytes after the device path's "
					      "end node");
			return ATT_OK;
		}
		if (type == DP_MEDIA && sub == DP_MEDIA_FILE) {
			if ((len - 4u) % 2 || len == 4 ||
			    utf16_to_utf8(body, (len - 4u) / 2, 1, path,
					  pathlen))
				return why_rc(why, whylen, ATT_E_FORMAT,
					      "file path node is not "
					      "UTF-16 text");
		}
	}
	return why_rc(why, whylen, ATT_E_TRUNCATED,
		      "device path has no end node");
}

int att_uefi_image_parse(const uint8_t *p, size_t n, char *path, size_t pathlen,
			 char *why, size_t whylen)
{
	uint64_t loc, ilen, link, dplen;
	const uint8_t *dp;
	struct att_rd r;

	path[0] = '\0';
	att_rd_init(&r, p, n);
	if (att_rd_u64le(&r, &loc) || att_rd_u64le(&r, &ilen) ||
	    att_rd_u64le(&r, &link) || att_rd_u64le(&r, &dplen))
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_IMAGE_LOAD_EVENT is cut short");
	if (dplen > att_rd_left(&r))
		return why_rc(why, whylen, ATT_E_TRUNCATED,
			      "UEFI_IMAGE_LOAD_EVENT device path past the "
			      "data");
	att_rd_bytes(&r, (size_t)dplen, &dp);
	if (att_rd_end(&r))
		return why_rc(why, whylen, ATT_E_TRAILING,
			      "UEFI_IMAGE_LOAD_EVENT: bytes after the device "
			      "path");
	if (!dplen)
		return ATT_OK;
	return walk_device_path(dp, (size_t)dplen, path, pathlen, why, whylen);
}

const char *att_boot_var_key(enum att_boot_var v)
{
	static const char *const keys[ATT_BV_COUNT] = {"pk", "kek", "db",
						       "dbx"};

	return (unsigned int)v < ATT_BV_COUNT ? keys[v] : "?";
}
