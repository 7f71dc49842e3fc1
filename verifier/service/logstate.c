// SPDX-License-Identifier: Apache-2.0
/*
 * logstate.c - per-log replay states in one blob (see logstate.h).
 */
#include <stdlib.h>
#include <string.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/rd.h"
#include "logstate.h"

static const uint8_t ls_magic[4] = {'A', 'V', 'L', 'S'};
#define LS_STATE_MAX (1u << 20)

int ver_logstates_new(struct ver_logstates **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? ATT_OK : ATT_E_NOMEM;
}

void ver_logstates_free(struct ver_logstates *s)
{
	free(s);
}

int ver_log_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= VER_LOG_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
		      name[i] == '-'))
			return 0;
	return 1;
}

const struct att_replay_state *ver_logstates_find(const struct ver_logstates *s,
						  const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->log[i].name, name))
			return &s->log[i].st;
	return NULL;
}

int ver_logstates_set(struct ver_logstates *s, const char *name,
		      const struct att_replay_state *st)
{
	unsigned int i;

	if (!ver_log_name_ok(name))
		return ATT_E_INVAL;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->log[i].name, name))
			break;
	if (i == s->n) {
		if (s->n == VER_MAX_LOGS)
			return ATT_E_TOO_BIG;
		s->n++;
		memcpy(s->log[i].name, name, strlen(name) + 1);
	}
	s->log[i].st = *st;
	return ATT_OK;
}

int ver_logstates_decode(const uint8_t *p, size_t len, struct ver_logstates *s)
{
	struct att_rd r;
	const uint8_t *b;
	uint8_t ver, count, nl;
	uint32_t sl;
	unsigned int i;
	char name[VER_LOG_NAME_MAX];
	int rc;

	s->n = 0;
	s->flags = 0;
	if (!len)
		return ATT_OK;
	if (len < 4 || memcmp(p, ls_magic, 4)) {
		/* One bare state: written when "ima" was the only log. */
		rc = att_replay_state_decode(p, len, &s->log[0].st);
		if (rc == ATT_E_UNSUPPORTED)
			return ATT_OK; /* an older encoding: from entry 0 */
		if (rc)
			return rc;
		memcpy(s->log[0].name, "ima", 4);
		s->n = 1;
		return ATT_OK;
	}
	att_rd_init(&r, p + 4, len - 4);
	if (att_rd_u8(&r, &ver) || (ver != 1 && ver != 2) ||
	    att_rd_u8(&r, &count) || count > VER_MAX_LOGS)
		return ATT_E_FORMAT;
	for (i = 0; i < count; i++) {
		if (att_rd_u8(&r, &nl) || !nl || nl >= VER_LOG_NAME_MAX ||
		    att_rd_copy(&r, name, nl))
			return ATT_E_FORMAT;
		name[nl] = '\0';
		if (!ver_log_name_ok(name) || ver_logstates_find(s, name) ||
		    att_rd_u32be(&r, &sl) || sl > LS_STATE_MAX ||
		    att_rd_bytes(&r, sl, &b))
			return ATT_E_FORMAT;
		rc = att_replay_state_decode(b, sl, &s->log[s->n].st);
		if (rc == ATT_E_UNSUPPORTED)
			continue; /* an older encoding: from entry 0 */
		if (rc)
			return rc;
		memcpy(s->log[s->n].name, name, (size_t)nl + 1);
		s->n++;
	}
	if (ver == 2) {
		uint8_t fl;

		if (att_rd_u8(&r, &fl) || (fl & ~VER_LS_FLAGS))
			return ATT_E_FORMAT;
		s->flags = fl;
	}
	return att_rd_end(&r) ? ATT_E_FORMAT : ATT_OK;
}

int ver_logstates_encode(const struct ver_logstates *s, uint8_t **out,
			 size_t *outlen)
{
	struct att_buf b;
	uint8_t *one;
	size_t onelen, nl;
	unsigned int i;
	int rc = ATT_OK;

	att_buf_init(&b, 0);
	rc |= att_buf_append(&b, ls_magic, 4);
	rc |= att_buf_append_u8(&b, 2);
	rc |= att_buf_append_u8(&b, (uint8_t)s->n);
	for (i = 0; i < s->n && !rc; i++) {
		if (att_replay_state_encode(&s->log[i].st, &one, &onelen)) {
			rc = 1;
			break;
		}
		nl = strlen(s->log[i].name);
		rc |= att_buf_append_u8(&b, (uint8_t)nl);
		rc |= att_buf_append(&b, s->log[i].name, nl);
		rc |= att_buf_append_u32be(&b, (uint32_t)onelen);
		rc |= att_buf_append(&b, one, onelen);
		free(one);
	}
	rc |= att_buf_append_u8(&b, (uint8_t)(s->flags & VER_LS_FLAGS));
	if (rc) {
		att_buf_release(&b);
		return ATT_E_NOMEM;
	}
	*out = b.data;
	*outlen = b.len;
	return ATT_OK;
}
