// SPDX-License-Identifier: Apache-2.0
/*
 * slim_event.c - parsing slim.ko's lattice event records
 * (docs/lattice-events.md): a 24-byte header, then u16 tag, u16 len,
 * value fields, all little-endian, exactly filling the record.
 */
#include "attest/lattice.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "attest/err.h"
#include "attest/rd.h"

/* the record's tags: SLIM_T_* of kernel/slim_wire.h */
#define T_LAST SLIM_T_LABEL

#define B(t) (1u << (t))

/* the fields each type must carry */
static const uint32_t required[] = {
	[ATT_SEV_LOAD] = B(SLIM_T_VERSION) | B(SLIM_T_MODE) | B(SLIM_T_PCR) |
			 B(SLIM_T_LOCK) | B(SLIM_T_EVM_DEMOTE) |
			 B(SLIM_T_DEFAULT_LABEL),
	[ATT_SEV_MODE] = B(SLIM_T_OLD_MODE) | B(SLIM_T_MODE) | B(SLIM_T_PID) |
			 B(SLIM_T_COMM),
	[ATT_SEV_POLICY] = B(SLIM_T_DIGEST) | B(SLIM_T_SOURCE) | B(SLIM_T_PID) |
			   B(SLIM_T_COMM),
	[ATT_SEV_EVM_KEY] = B(SLIM_T_PID) | B(SLIM_T_COMM),
	[ATT_SEV_RELABEL] = B(SLIM_T_PATH) | B(SLIM_T_OLD_LABEL) |
			    B(SLIM_T_NEW_LABEL) | B(SLIM_T_PID) |
			    B(SLIM_T_COMM),
	[ATT_SEV_DEMOTION] = B(SLIM_T_PID) | B(SLIM_T_COMM) | B(SLIM_T_EXE) |
			     B(SLIM_T_OLD_LABEL) | B(SLIM_T_NEW_LABEL) |
			     B(SLIM_T_CAUSE),
	[ATT_SEV_DROPPED] = B(SLIM_T_COUNT) | B(SLIM_T_FINAL),
	[ATT_SEV_REFUSED] = B(SLIM_T_PID) | B(SLIM_T_COMM) | B(SLIM_T_EXE) |
			    B(SLIM_T_LABEL) | B(SLIM_T_ACTION) | B(SLIM_T_MODE),
};

static const char *const type_names[] = {
	[ATT_SEV_LOAD] = "load",       [ATT_SEV_MODE] = "mode",
	[ATT_SEV_POLICY] = "policy",   [ATT_SEV_EVM_KEY] = "evm_key",
	[ATT_SEV_RELABEL] = "relabel", [ATT_SEV_DEMOTION] = "demotion",
	[ATT_SEV_DROPPED] = "dropped", [ATT_SEV_REFUSED] = "refused",
};

const char *att_sev_type_name(unsigned int type)
{
	if (type >= sizeof(type_names) / sizeof(type_names[0]) ||
	    !type_names[type])
		return "unknown";
	return type_names[type];
}

const char *att_sev_mode_name(unsigned int mode)
{
	static const char *const names[] = SLIM_MODE_NAMES;

	return mode < sizeof(names) / sizeof(names[0]) ? names[mode]
						       : "unknown";
}

/* The one table of causes (docs/lattice-events.md, tag 15). */
static const struct att_sev_cause_info causes[] = {
	{ATT_SEV_CAUSE_FILE, "file", "read", "reading"},
	{ATT_SEV_CAUSE_IP, "ip", "IP socket", "receiving on an IP socket"},
	{ATT_SEV_CAUSE_PROCESS, "process", "another process",
	 "tracing or accessing another process's memory"},
	{ATT_SEV_CAUSE_PIPE, "pipe", "pipe", "reading from a pipe"},
	{ATT_SEV_CAUSE_UNIX, "unix", "UNIX socket",
	 "receiving on a UNIX socket"},
	{ATT_SEV_CAUSE_SHM, "shm", "SysV shared memory",
	 "attaching SysV shared memory"},
	{ATT_SEV_CAUSE_MSG, "msg", "SysV message", "receiving a SysV message"},
	{ATT_SEV_CAUSE_MQUEUE, "mqueue", "POSIX message",
	 "receiving a POSIX message"},
	{ATT_SEV_CAUSE_OBJECT, "object", "kernel object",
	 "reading a kernel object (netlink, eventfd, pty, key, semaphore, "
	 "xattr)"},
};

const struct att_sev_cause_info *att_sev_cause(unsigned int cause)
{
	size_t i;

	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].value == cause)
			return &causes[i];
	return NULL;
}

const struct att_sev_cause_info *att_sev_cause_by_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(causes) / sizeof(causes[0]); i++)
		if (!strcmp(causes[i].name, name))
			return &causes[i];
	return NULL;
}

int att_is_slim_event(const struct att_ima_entry *e)
{
	return e->template_name && !strcmp(e->template_name, "ima-buf") &&
	       e->path && e->path_len == 10 &&
	       !memcmp(e->path, "slim_event", 10);
}

static int fail(char *why, size_t n, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t n, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return rc;
}

/* an integer field of its exact size */
static int field_int(struct att_rd *f, size_t len, size_t want, uint64_t *v)
{
	uint8_t b;
	uint32_t w;

	if (len != want)
		return ATT_E_FORMAT;
	if (want == 1) {
		att_rd_u8(f, &b);
		*v = b;
	} else if (want == 4) {
		att_rd_u32le(f, &w);
		*v = w;
	} else {
		att_rd_u64le(f, v);
	}
	return ATT_OK;
}

static int field_str(const uint8_t *p, size_t len, struct att_sev_str *s)
{
	if (len > ATT_SEV_STR_MAX || memchr(p, '\0', len))
		return ATT_E_FORMAT;
	s->p = p;
	s->len = len;
	return ATT_OK;
}

static int take_field(struct att_slim_event *ev, unsigned int tag,
		      const uint8_t *p, size_t len)
{
	struct att_sev_str *str[] = {
		[SLIM_T_VERSION] = &ev->version,
		[SLIM_T_DEFAULT_LABEL] = &ev->default_label,
		[SLIM_T_COMM] = &ev->comm,
		[SLIM_T_EXE] = &ev->exe,
		[SLIM_T_OLD_LABEL] = &ev->old_label,
		[SLIM_T_NEW_LABEL] = &ev->new_label,
		[SLIM_T_PATH] = &ev->path,
		[SLIM_T_ACTION] = &ev->action,
		[SLIM_T_LABEL] = &ev->label,
	};
	uint8_t *u8s[] = {
		[SLIM_T_MODE] = &ev->mode,
		[SLIM_T_OLD_MODE] = &ev->old_mode,
		[SLIM_T_PCR] = &ev->pcr,
		[SLIM_T_LOCK] = &ev->lock,
		[SLIM_T_EVM_DEMOTE] = &ev->evm_demote,
		[SLIM_T_CAUSE] = &ev->cause,
		[SLIM_T_SOURCE] = &ev->source,
		[SLIM_T_FINAL] = &ev->final,
	};
	struct att_rd f;
	uint64_t v = 0;
	int rc;

	att_rd_init(&f, p, len);
	if (tag == SLIM_T_DIGEST) {
		if (len != ATT_SEV_DIGEST_LEN)
			return ATT_E_FORMAT;
		ev->digest = p;
		return ATT_OK;
	}
	if (tag == SLIM_T_PID) {
		rc = field_int(&f, len, 4, &v);
		ev->pid = (uint32_t)v;
		return rc;
	}
	if (tag == SLIM_T_COUNT)
		return field_int(&f, len, 8, &ev->count);
	if (tag < sizeof(str) / sizeof(str[0]) && str[tag])
		return field_str(p, len, str[tag]);
	rc = field_int(&f, len, 1, &v);
	if (!rc)
		*u8s[tag] = (uint8_t)v;
	return rc;
}

static int check_values(const struct att_slim_event *ev, char *why, size_t n)
{
	if ((ev->have & B(SLIM_T_MODE)) && ev->mode > ATT_SEV_MODE_ENFORCE)
		return fail(why, n, ATT_E_FORMAT, "mode %u", ev->mode);
	if ((ev->have & B(SLIM_T_OLD_MODE)) &&
	    ev->old_mode > ATT_SEV_MODE_ENFORCE)
		return fail(why, n, ATT_E_FORMAT, "old mode %u", ev->old_mode);
	if (ev->type == ATT_SEV_DEMOTION) {
		if (!att_sev_cause(ev->cause))
			return fail(why, n, ATT_E_FORMAT,
				    "demotion with an unknown cause %u (known: "
				    "1 to %u)",
				    ev->cause,
				    (unsigned int)ATT_SEV_CAUSE_LAST);
		if (ev->cause == ATT_SEV_CAUSE_FILE &&
		    !(ev->have & B(SLIM_T_PATH)))
			return fail(why, n, ATT_E_FORMAT,
				    "demotion by a file without its path (%u)",
				    SLIM_T_PATH);
	}
	if ((ev->have & B(SLIM_T_FINAL)) && ev->final > 1)
		return fail(why, n, ATT_E_FORMAT, "final %u", ev->final);
	if ((ev->have & B(SLIM_T_SOURCE)) && ev->source > 1)
		return fail(why, n, ATT_E_FORMAT, "source %u", ev->source);
	return ATT_OK;
}

int att_slim_event_parse(const uint8_t *buf, size_t len,
			 struct att_slim_event *ev, char *why, size_t whylen)
{
	const uint8_t *magic, *val;
	uint8_t version, type;
	uint16_t reserved, tag, flen;
	struct att_rd r;
	int rc;

	memset(ev, 0, sizeof(*ev));
	why[0] = '\0';
	if (len > ATT_SEV_MAX_LEN)
		return fail(why, whylen, ATT_E_TOO_BIG,
			    "record of more than %u bytes", ATT_SEV_MAX_LEN);
	att_rd_init(&r, buf, len);
	if (att_rd_bytes(&r, 4, &magic) || att_rd_u8(&r, &version) ||
	    att_rd_u8(&r, &type) || att_rd_u16le(&r, &reserved) ||
	    att_rd_u64le(&r, &ev->seq) || att_rd_u64le(&r, &ev->time))
		return fail(why, whylen, ATT_E_TRUNCATED,
			    "record shorter than its %u-byte header", 24);
	if (memcmp(magic, "SLEV", 4))
		return fail(why, whylen, ATT_E_FORMAT, "bad magic (version %u)",
			    version);
	if (version != 1)
		return fail(why, whylen, ATT_E_UNSUPPORTED, "version %u",
			    version);
	if (type < ATT_SEV_LOAD || type > ATT_SEV_REFUSED)
		return fail(why, whylen, ATT_E_UNSUPPORTED, "unknown type %u",
			    type);
	if (reserved)
		return fail(why, whylen, ATT_E_FORMAT, "reserved bytes %u",
			    reserved);
	ev->type = type;
	while (att_rd_left(&r)) {
		if (att_rd_u16le(&r, &tag) || att_rd_u16le(&r, &flen) ||
		    att_rd_bytes(&r, flen, &val))
			return fail(why, whylen, ATT_E_TRUNCATED,
				    "field at byte %u runs past the record",
				    (unsigned int)r.off);
		if (!tag || tag > T_LAST)
			continue; /* a later version's field */
		if (ev->have & B(tag))
			return fail(why, whylen, ATT_E_FORMAT, "field %u twice",
				    tag);
		ev->have |= B(tag);
		rc = take_field(ev, tag, val, flen);
		if (rc)
			return fail(why, whylen, rc,
				    "field %u: bad length or bytes", tag);
	}
	if ((ev->have & required[type]) != required[type]) {
		snprintf(why, whylen, "%s record without a required field",
			 att_sev_type_name(type));
		return ATT_E_FORMAT;
	}
	return check_values(ev, why, whylen);
}
