// SPDX-License-Identifier: Apache-2.0
/*
 * uefi.c - TPM event log parsing and replay.
 */
#include "attest/uefi.h"

#include <stdio.h>
#include <string.h>

#include "attest/err.h"
#include "attest/rd.h"

static const uint8_t spec_id03[16] = "Spec ID Event03";
static const uint8_t startup_loc[16] = "StartupLocality";

static int fail(char *err, size_t errlen, int rc, uint64_t idx, size_t off,
		const char *what)
{
	snprintf(err, errlen, "event %llu at byte %zu: %s",
		 (unsigned long long)idx, off, what);
	return rc;
}

/* The Spec ID event's data: the algorithm table. */
static int parse_spec_id(const uint8_t *d, uint32_t n,
			 struct att_uefi_info *info, char *err, size_t errlen)
{
	uint32_t platform, nalgs, i;
	uint8_t uintn, vsize;
	struct att_rd r;

	att_rd_init(&r, d, n);
	if (att_rd_skip(&r, 16) || att_rd_u32le(&r, &platform) ||
	    att_rd_u8(&r, &info->spec_minor) ||
	    att_rd_u8(&r, &info->spec_major) ||
	    att_rd_u8(&r, &info->spec_errata) || att_rd_u8(&r, &uintn) ||
	    att_rd_u32le(&r, &nalgs))
		return fail(err, errlen, ATT_E_TRUNCATED, 0, 32,
			    "Spec ID event is truncated");
	if (info->spec_major != 2 || (uintn != 1 && uintn != 2))
		return fail(err, errlen, ATT_E_UNSUPPORTED, 0, 32,
			    "unsupported Spec ID version or uintnSize");
	if (!nalgs || nalgs > ATT_UEFI_MAX_ALGS)
		return fail(err, errlen, ATT_E_FORMAT, 0, 32,
			    "Spec ID algorithm count not in 1..8");
	for (i = 0; i < nalgs; i++) {
		uint16_t alg, size;
		enum att_hash h;
		uint32_t k;

		if (att_rd_u16le(&r, &alg) || att_rd_u16le(&r, &size))
			return fail(err, errlen, ATT_E_TRUNCATED, 0, 32,
				    "Spec ID algorithm table is truncated");
		h = att_hash_by_tpm_alg(alg);
		if (h == ATT_HASH_NONE)
			return fail(err, errlen, ATT_E_UNSUPPORTED, 0, 32,
				    "unknown algorithm in the Spec ID table");
		if (size != att_hash_size(h))
			return fail(err, errlen, ATT_E_FORMAT, 0, 32,
				    "digest size does not match its algorithm");
		for (k = 0; k < i; k++)
			if (info->algs[k] == h)
				return fail(err, errlen, ATT_E_FORMAT, 0, 32,
					    "algorithm listed twice");
		info->algs[i] = h;
	}
	info->nalgs = nalgs;
	if (att_rd_u8(&r, &vsize) || att_rd_skip(&r, vsize) || att_rd_end(&r))
		return fail(err, errlen, ATT_E_FORMAT, 0, 32,
			    "Spec ID vendor info does not fit the event");
	return ATT_OK;
}

/* TCG_PCR_EVENT (SHA-1 format): pcr, type, digest[20], size, data. */
static int read_event1(struct att_rd *r, const struct att_uefi_limits *lim,
		       struct att_uefi_event *ev)
{
	const uint8_t *d;
	int rc;

	if ((rc = att_rd_u32le(r, &ev->pcr)) ||
	    (rc = att_rd_u32le(r, &ev->type)) ||
	    (rc = att_rd_bytes(r, 20, &d)) ||
	    (rc = att_rd_lv32le(r, lim->max_data, &ev->data, &ev->data_len)))
		return rc;
	ev->ndigests = 1;
	ev->digests[0].alg = ATT_HASH_SHA1;
	ev->digests[0].d = d;
	return ATT_OK;
}

/* TCG_PCR_EVENT2: pcr, type, count, {alg, digest}..., size, data. */
static int read_event2(struct att_rd *r, const struct att_uefi_limits *lim,
		       const struct att_uefi_info *info,
		       struct att_uefi_event *ev, const char **why)
{
	uint32_t count, i;
	int rc;

	if ((rc = att_rd_u32le(r, &ev->pcr)) ||
	    (rc = att_rd_u32le(r, &ev->type)) || (rc = att_rd_u32le(r, &count)))
		return rc;
	if (count != info->nalgs) {
		/* Firmware logs carry every bank of the Spec ID table. */
		*why = "digest count differs from the Spec ID table";
		return ATT_E_FORMAT;
	}
	for (i = 0; i < count; i++) {
		uint16_t alg;
		enum att_hash h;
		unsigned int k;

		if ((rc = att_rd_u16le(r, &alg)))
			return rc;
		h = att_hash_by_tpm_alg(alg);
		for (k = 0; k < info->nalgs && info->algs[k] != h; k++)
			;
		if (h == ATT_HASH_NONE || k == info->nalgs) {
			*why = "digest algorithm not in the Spec ID table";
			return ATT_E_UNSUPPORTED;
		}
		for (k = 0; k < i; k++)
			if (ev->digests[k].alg == h) {
				*why = "digest algorithm repeated";
				return ATT_E_FORMAT;
			}
		ev->digests[i].alg = h;
		if ((rc = att_rd_bytes(r, att_hash_size(h), &ev->digests[i].d)))
			return rc;
	}
	ev->ndigests = count;
	return att_rd_lv32le(r, lim->max_data, &ev->data, &ev->data_len);
}

int att_uefi_parse(const uint8_t *p, size_t len,
		   const struct att_uefi_limits *limits, att_uefi_event_fn fn,
		   void *arg, struct att_uefi_info *info, char *err,
		   size_t errlen)
{
	struct att_uefi_limits lim = {1u << 20, 1u << 20};
	struct att_uefi_event ev;
	struct att_rd r;
	size_t off;
	int rc;

	memset(info, 0, sizeof(*info));
	if (limits) {
		if (limits->max_data)
			lim.max_data = limits->max_data;
		if (limits->max_events)
			lim.max_events = limits->max_events;
	}
	att_rd_init(&r, p, len);
	if (!len)
		return fail(err, errlen, ATT_E_FORMAT, 0, 0, "empty log");
	memset(&ev, 0, sizeof(ev));
	rc = read_event1(&r, &lim, &ev);
	if (rc)
		return fail(err, errlen, rc, 0, 0,
			    rc == ATT_E_TOO_BIG ? "event data over the cap"
						: "first event is truncated");
	if (ev.type == ATT_UEFI_EV_NO_ACTION && ev.data_len >= 16 &&
	    !memcmp(ev.data, spec_id03, 16)) {
		rc = parse_spec_id(ev.data, ev.data_len, info, err, errlen);
		if (rc)
			return rc;
		info->crypto_agile = 1;
	} else {
		/* SHA-1-only log: the first record is an event like the rest.
		 */
		info->nalgs = 1;
		info->algs[0] = ATT_HASH_SHA1;
		att_rd_init(&r, p, len);
	}
	while (att_rd_left(&r)) {
		const char *why = NULL;

		off = r.off;
		memset(&ev, 0, sizeof(ev));
		ev.index = info->events;
		ev.offset = off;
		if (info->events >= lim.max_events)
			return fail(err, errlen, ATT_E_TOO_BIG, ev.index, off,
				    "more events than the cap");
		rc = info->crypto_agile ? read_event2(&r, &lim, info, &ev, &why)
					: read_event1(&r, &lim, &ev);
		if (rc)
			return fail(err, errlen, rc, ev.index, off,
				    why ? why
				    : rc == ATT_E_TOO_BIG
					    ? "event data over the cap"
					    : "event is truncated");
		if (ev.pcr >= ATT_PCR_COUNT)
			return fail(err, errlen, ATT_E_FORMAT, ev.index, off,
				    "PCR index out of range");
		if (ev.type == ATT_UEFI_EV_NO_ACTION && ev.pcr == 0 &&
		    ev.data_len == 17 && !memcmp(ev.data, startup_loc, 16))
			info->startup_locality = ev.data[16];
		info->events++;
		if (fn) {
			rc = fn(&ev, arg);
			if (rc)
				return rc;
		}
	}
	return ATT_OK;
}

struct replay_ctx {
	struct att_pcrs *pcrs;
	struct att_uefi_info *info;
	struct att_md *md[ATT_HASH_COUNT];
	uint8_t locality; /* found by the first pass */
};

static int replay_event(const struct att_uefi_event *ev, void *arg)
{
	struct replay_ctx *c = arg;
	unsigned int i;
	int rc;

	if (ev->type == ATT_UEFI_EV_NO_ACTION)
		return ATT_OK; /* not extended */
	for (i = 0; i < ev->ndigests; i++) {
		enum att_hash h = ev->digests[i].alg;
		size_t n = att_hash_size(h);
		uint8_t *v = c->pcrs->val[h][ev->pcr];

		if (!(c->pcrs->mask[h] & (1u << ev->pcr))) {
			memset(v, 0, n);
			if (ev->pcr == 0)
				v[n - 1] = c->locality;
			c->pcrs->mask[h] |= 1u << ev->pcr;
		}
		rc = att_md_init(c->md[h]);
		if (!rc)
			rc = att_md_update(c->md[h], v, n);
		if (!rc)
			rc = att_md_update(c->md[h], ev->digests[i].d, n);
		if (!rc)
			rc = att_md_final(c->md[h], v);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

int att_uefi_replay(const uint8_t *p, size_t len,
		    const struct att_uefi_limits *lim, struct att_pcrs *out,
		    struct att_uefi_info *info, char *err, size_t errlen)
{
	struct replay_ctx c = {.pcrs = out, .info = info};
	unsigned int i;
	int rc, h;

	att_pcrs_clear(out);
	/* First pass: header and StartupLocality (it precedes PCR 0's). */
	rc = att_uefi_parse(p, len, lim, NULL, NULL, info, err, errlen);
	if (rc)
		return rc;
	for (i = 0; i < info->nalgs; i++) {
		rc = att_md_new(info->algs[i], &c.md[info->algs[i]]);
		if (rc)
			goto out;
	}
	c.locality = info->startup_locality;
	rc = att_uefi_parse(p, len, lim, replay_event, &c, info, err, errlen);
out:
	for (h = 0; h < ATT_HASH_COUNT; h++)
		att_md_free(c.md[h]);
	return rc;
}

static const struct {
	uint32_t type;
	const char *name;
} event_names[] = {
	{0x00000000, "EV_PREBOOT_CERT"},
	{0x00000001, "EV_POST_CODE"},
	{0x00000003, "EV_NO_ACTION"},
	{0x00000004, "EV_SEPARATOR"},
	{0x00000005, "EV_ACTION"},
	{0x00000006, "EV_EVENT_TAG"},
	{0x00000007, "EV_S_CRTM_CONTENTS"},
	{0x00000008, "EV_S_CRTM_VERSION"},
	{0x00000009, "EV_CPU_MICROCODE"},
	{0x0000000a, "EV_PLATFORM_CONFIG_FLAGS"},
	{0x0000000b, "EV_TABLE_OF_DEVICES"},
	{0x0000000c, "EV_COMPACT_HASH"},
	{0x0000000d, "EV_IPL"},
	{0x0000000e, "EV_IPL_PARTITION_DATA"},
	{0x0000000f, "EV_NONHOST_CODE"},
	{0x00000010, "EV_NONHOST_CONFIG"},
	{0x00000011, "EV_NONHOST_INFO"},
	{0x00000012, "EV_OMIT_BOOT_DEVICE_EVENTS"},
	{0x80000001, "EV_EFI_VARIABLE_DRIVER_CONFIG"},
	{0x80000002, "EV_EFI_VARIABLE_BOOT"},
	{0x80000003, "EV_EFI_BOOT_SERVICES_APPLICATION"},
	{0x80000004, "EV_EFI_BOOT_SERVICES_DRIVER"},
	{0x80000005, "EV_EFI_RUNTIME_SERVICES_DRIVER"},
	{0x80000006, "EV_EFI_GPT_EVENT"},
	{0x80000007, "EV_EFI_ACTION"},
	{0x80000008, "EV_EFI_PLATFORM_FIRMWARE_BLOB"},
	{0x80000009, "EV_EFI_HANDOFF_TABLES"},
	{0x8000000a, "EV_EFI_PLATFORM_FIRMWARE_BLOB2"},
	{0x8000000b, "EV_EFI_HANDOFF_TABLES2"},
	{0x800000e0, "EV_EFI_VARIABLE_AUTHORITY"},
};

const char *att_uefi_event_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if (event_names[i].type == type)
			return event_names[i].name;
	return "EV_UNKNOWN";
}
