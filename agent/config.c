// SPDX-License-Identifier: Apache-2.0
/*
 * config.c - attest-agent configuration.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/kvconf.h"
#include "attest/tpm_esys.h"
#include "logsrc.h"

#define CONF_MAX (1u << 20)

void agent_config_init(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval = 30;
	c->ak_handle = ATT_ESYS_AK_HANDLE_DEFAULT;
}

void agent_config_release(struct agent_config *c)
{
	size_t i;

	for (i = 0; i < c->nverifiers; i++)
		free(c->verifiers[i]);
	for (i = 0; i < c->nlogs; i++) {
		free(c->logs[i].name);
		free(c->logs[i].path);
	}
	free(c->ca);
	free(c->token_file);
	free(c->agent_id);
	free(c->tcti);
	free(c->uefi_log);
	free(c->state_dir);
	free(c->user);
	memset(c, 0, sizeof(*c));
}

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return ATT_E_NOMEM;
	free(*dst);
	*dst = s;
	return ATT_OK;
}

static int parse_u32(const char *v, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 0);
	if (errno || !*v || *end || n > max)
		return ATT_E_FORMAT;
	*out = (uint32_t)n;
	return ATT_OK;
}

/* name:path:pcr[:bank]; the path may not hold ':' */
static int parse_log(struct agent_config *c, const char *v, char *err,
		     size_t errlen)
{
	struct agent_log_conf *l;
	char *copy, *name, *path, *pcr, *bank;
	int rc = ATT_E_FORMAT;

	if (c->nlogs == AGENT_MAX_LOGS) {
		snprintf(err, errlen, "log: at most %d logs", AGENT_MAX_LOGS);
		return ATT_E_TOO_BIG;
	}
	copy = strdup(v);
	if (!copy)
		return ATT_E_NOMEM;
	name = copy;
	path = strchr(name, ':');
	pcr = path ? strchr(path + 1, ':') : NULL;
	if (!path || !pcr)
		goto bad;
	*path++ = '\0';
	*pcr++ = '\0';
	bank = strchr(pcr, ':');
	if (bank)
		*bank++ = '\0';
	l = &c->logs[c->nlogs];
	memset(l, 0, sizeof(*l));
	l->bank = bank ? att_hash_by_name(bank, strlen(bank)) : ATT_HASH_SHA1;
	if (!*name || *path != '/' || parse_u32(pcr, 23, &l->pcr) ||
	    l->bank == ATT_HASH_NONE)
		goto bad;
	l->name = strdup(name);
	l->path = strdup(path);
	if (!l->name || !l->path) {
		free(l->name);
		free(l->path);
		rc = ATT_E_NOMEM;
		goto out;
	}
	c->nlogs++;
	rc = ATT_OK;
	goto out;
bad:
	snprintf(err, errlen,
		 "log: expected NAME:/PATH:PCR[:BANK], got '%.80s'", v);
out:
	free(copy);
	return rc;
}

int agent_config_set(struct agent_config *c, const char *key, const char *value,
		     char *err, size_t errlen)
{
	int rc;

	if (!strcmp(key, "verifier")) {
		if (c->nverifiers == AGENT_MAX_VERIFIERS) {
			snprintf(err, errlen, "verifier: at most %d",
				 AGENT_MAX_VERIFIERS);
			return ATT_E_TOO_BIG;
		}
		if (strncmp(value, "https://", 8) || !value[8]) {
			/* No plaintext fallback, ever. */
			snprintf(err, errlen,
				 "verifier: must be an https:// "
				 "URL, got '%.80s'",
				 value);
			return ATT_E_FORMAT;
		}
		rc = set_str(&c->verifiers[c->nverifiers], value);
		if (!rc)
			c->nverifiers++;
		return rc;
	}
	if (!strcmp(key, "log"))
		return parse_log(c, value, err, errlen);
	if (!strcmp(key, "ak_handle")) {
		if (parse_u32(value, 0xffffffffUL, &c->ak_handle) ||
		    (c->ak_handle >> 24) != 0x81) {
			snprintf(err, errlen,
				 "ak_handle: must be a persistent "
				 "handle 0x81xxxxxx");
			return ATT_E_FORMAT;
		}
		return ATT_OK;
	}
	if (!strcmp(key, "interval")) {
		if (parse_u32(value, 86400, &c->interval) || !c->interval) {
			snprintf(err, errlen, "interval: 1..86400 seconds");
			return ATT_E_FORMAT;
		}
		return ATT_OK;
	}
	if (!strcmp(key, "ek")) {
		if (strcmp(value, "rsa") && strcmp(value, "ecc")) {
			snprintf(err, errlen, "ek: rsa or ecc");
			return ATT_E_FORMAT;
		}
		c->ek_ecc = !strcmp(value, "ecc");
		return ATT_OK;
	}
	if (!strcmp(key, "ca"))
		return set_str(&c->ca, value);
	if (!strcmp(key, "enrollment_token_file"))
		return set_str(&c->token_file, value);
	if (!strcmp(key, "agent_id"))
		return set_str(&c->agent_id, value);
	if (!strcmp(key, "tcti"))
		return set_str(&c->tcti, value);
	if (!strcmp(key, "uefi_log"))
		return set_str(&c->uefi_log, value);
	if (!strcmp(key, "state_dir"))
		return set_str(&c->state_dir, value);
	if (!strcmp(key, "user"))
		return set_str(&c->user, value);
	snprintf(err, errlen, "unknown setting '%.64s'", key);
	return ATT_E_FORMAT;
}

static int set_kv(const char *key, const char *value, void *arg, char *err,
		  size_t errlen)
{
	return agent_config_set(arg, key, value, err, errlen);
}

int agent_config_parse(struct agent_config *c, const char *text, size_t len,
		       char *err, size_t errlen)
{
	return att_kv_parse(text, len, set_kv, c, err, errlen);
}

int agent_config_load(struct agent_config *c, const char *path, char *err,
		      size_t errlen)
{
	struct att_buf b;
	int rc;

	att_buf_init(&b, 0);
	rc = att_buf_read_file(&b, path, CONF_MAX);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path,
			 rc == ATT_E_IO ? strerror(errno) : att_strerror(rc));
		return rc;
	}
	rc = agent_config_parse(c, (const char *)b.data, b.len, err, errlen);
	att_buf_release(&b);
	return rc;
}

int agent_config_finish(struct agent_config *c, char *err, size_t errlen)
{
	char host[256];
	int rc;

	if (!c->nverifiers) {
		snprintf(err, errlen, "no verifier configured");
		return ATT_E_INVAL;
	}
	if (!c->ca) {
		snprintf(err, errlen,
			 "no verifier CA (ca = FILE) configured: "
			 "the agent pins it");
		return ATT_E_INVAL;
	}
	if (!c->nlogs) {
		rc = agent_config_set(c, "log", "ima:" AGENT_LOG_IMA_PATH ":10",
				      err, errlen);
		if (rc)
			return rc;
	}
	if (!c->state_dir &&
	    (rc = set_str(&c->state_dir, "/var/lib/attest-agent")))
		return rc;
	if (!c->agent_id) {
		if (gethostname(host, sizeof(host)) < 0)
			return ATT_E_IO;
		host[sizeof(host) - 1] = '\0';
		if ((rc = set_str(&c->agent_id, host)))
			return rc;
	}
	return ATT_OK;
}
