// SPDX-License-Identifier: Apache-2.0
/*
 * config.c - attest-verifier's settings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/kvconf.h"
#include "attest/log.h"
#include "config.h"
#include "store.h"

#define VER_CONFIG_FILE_MAX (64 * 1024)

void ver_config_defaults(struct ver_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->listen_host, sizeof(c->listen_host), "127.0.0.1");
	c->listen_port = 8443;
	snprintf(c->database, sizeof(c->database),
		 "sqlite:/var/lib/attest/verifier.db");
	c->max_body = 16u << 20;
	c->max_anon_body = 64u << 10;
	c->max_body_inflight = 256u << 20;
	c->clock_drift = 10;
	c->clock_slack = 2000;
	c->max_connections = 256;
	c->threads = 16; /* they wait on disk syncs and the database */
	c->request_timeout = 30;
	c->drain_timeout = 30;
	c->nonce_lifetime = 60;
	c->interval = 60;
	c->agent_cert_days = 365;
	c->history_keep = ATT_STORE_HISTORY_KEEP;
	c->dashboard = 1;
	c->log_level = ATT_LOG_INFO;
	memcpy(c->logs[0].name, "ima", 4);
	c->logs[0].pcr = 10;
	c->nlogs = 1;
}

int ver_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return ATT_E_FORMAT;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return ATT_E_FORMAT;
	*out = v;
	return 0;
}

static int set_str(char *dst, size_t cap, const char *val, const char *key,
		   char *err, size_t errlen)
{
	size_t n = strlen(val);

	if (n >= cap) {
		snprintf(err, errlen, "%s: value too long", key);
		return ATT_E_TOO_BIG;
	}
	memcpy(dst, val, n + 1);
	return 0;
}

static int set_listen(struct ver_config *c, const char *val, char *err,
		      size_t errlen)
{
	const char *colon = strrchr(val, ':');
	uint64_t port;
	size_t hl;

	if (!colon || colon == val ||
	    ver_parse_u64(colon + 1, 0, 65535, &port)) {
		snprintf(err, errlen, "listen: expected HOST:PORT");
		return ATT_E_FORMAT;
	}
	hl = (size_t)(colon - val);
	if (hl >= sizeof(c->listen_host)) {
		snprintf(err, errlen, "listen: host too long");
		return ATT_E_TOO_BIG;
	}
	memcpy(c->listen_host, val, hl);
	c->listen_host[hl] = '\0';
	c->listen_port = (unsigned int)port;
	return 0;
}

/* "ima:10,slim:11": names unique, PCRs unique and in 10..23. */
static int set_logs(struct ver_config *c, const char *val, char *err,
		    size_t errlen)
{
	struct ver_log_spec logs[VER_MAX_LOGS];
	unsigned int n = 0, i;
	const char *p = val, *end, *colon;
	char num[8];
	uint64_t pcr;
	size_t len;

	memset(logs, 0, sizeof(logs));
	while (*p) {
		while (*p == ' ')
			p++;
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		colon = memchr(p, ':', (size_t)(end - p));
		if (!colon || n == VER_MAX_LOGS) {
			snprintf(err, errlen,
				 n == VER_MAX_LOGS ? "logs: at most %d logs"
						   : "logs: expected "
						     "NAME:PCR[,NAME:PCR...]",
				 VER_MAX_LOGS);
			return ATT_E_FORMAT;
		}
		len = (size_t)(colon - p);
		if (len >= VER_LOG_NAME_MAX) {
			snprintf(err, errlen, "logs: name too long");
			return ATT_E_FORMAT;
		}
		memcpy(logs[n].name, p, len);
		logs[n].name[len] = '\0';
		len = (size_t)(end - colon - 1);
		while (len && colon[len] == ' ')
			len--;
		if (len >= sizeof(num)) {
			snprintf(err, errlen, "logs: bad PCR for '%s'",
				 logs[n].name);
			return ATT_E_FORMAT;
		}
		memcpy(num, colon + 1, len);
		num[len] = '\0';
		if (!ver_log_name_ok(logs[n].name)) {
			snprintf(err, errlen,
				 "logs: '%s': a name is 1-15 of a-z 0-9 _ -",
				 logs[n].name);
			return ATT_E_FORMAT;
		}
		if (ver_parse_u64(num, 10, 23, &pcr)) {
			snprintf(err, errlen,
				 "logs: '%s': the PCR must be 10 to 23 (0-9 "
				 "are the boot's)",
				 logs[n].name);
			return ATT_E_FORMAT;
		}
		logs[n].pcr = (unsigned int)pcr;
		for (i = 0; i < n; i++)
			if (!strcmp(logs[i].name, logs[n].name) ||
			    logs[i].pcr == logs[n].pcr) {
				snprintf(err, errlen,
					 "logs: '%s' repeats a name or a PCR",
					 logs[n].name);
				return ATT_E_FORMAT;
			}
		n++;
		p = *end ? end + 1 : end;
	}
	if (!n) {
		snprintf(err, errlen, "logs: at least one log");
		return ATT_E_FORMAT;
	}
	memcpy(c->logs, logs, sizeof(logs));
	c->nlogs = n;
	return 0;
}

struct num_key {
	const char *key;
	size_t off;
	int is_size;
	uint64_t min, max;
};

#define NUMK(k, f, sz, lo, hi)                                \
	{                                                     \
		k, offsetof(struct ver_config, f), sz, lo, hi \
	}

static const struct num_key num_keys[] = {
	NUMK("max_body", max_body, 1, 1024, 1ull << 31),
	NUMK("max_anon_body", max_anon_body, 1, 1024, 1ull << 31),
	NUMK("max_body_inflight", max_body_inflight, 1, 1024, 1ull << 40),
	NUMK("clock_drift", clock_drift, 0, 0, 50),
	NUMK("clock_slack", clock_slack, 0, 0, 3600000),
	NUMK("max_connections", max_connections, 0, 1, 100000),
	NUMK("threads", threads, 0, 1, 256),
	NUMK("request_timeout", request_timeout, 0, 1, 3600),
	NUMK("drain_timeout", drain_timeout, 0, 0, 3600),
	NUMK("nonce_lifetime", nonce_lifetime, 0, 1, 3600),
	NUMK("interval", interval, 0, 1, 86400),
	NUMK("require_uefi_log", require_uefi_log, 0, 0, 1),
	NUMK("agent_cert_days", agent_cert_days, 0, 1, 3650),
	NUMK("history_keep", history_keep, 0, 2, ATT_STORE_HISTORY_KEEP_MAX),
	NUMK("dashboard", dashboard, 0, 0, 1),
};

struct str_key {
	const char *key;
	size_t off;
};

#define STRK(k, f)                                \
	{                                         \
		k, offsetof(struct ver_config, f) \
	}

static const struct str_key str_keys[] = {
	STRK("port_file", port_file),	  STRK("tls_cert", tls_cert),
	STRK("tls_key", tls_key),	  STRK("admin_ca", admin_ca),
	STRK("agent_ca", agent_ca),	  STRK("agent_ca_key", agent_ca_key),
	STRK("ek_ca_dir", ek_ca_dir),	  STRK("database", database),
	STRK("webhook_url", webhook_url), STRK("webhook_ca", webhook_ca),
	STRK("static_pcrs", static_pcrs),
};

int ver_config_set(struct ver_config *c, const char *key, const char *val,
		   char *err, size_t errlen)
{
	enum att_log_level lvl;
	uint64_t v;
	size_t i;

	if (!strcmp(key, "listen"))
		return set_listen(c, val, err, errlen);
	if (!strcmp(key, "logs"))
		return set_logs(c, val, err, errlen);
	if (!strcmp(key, "log_level")) {
		if (att_log_parse_level(val, &lvl)) {
			snprintf(
				err, errlen,
				"log_level: expected err, warn, info or debug");
			return ATT_E_FORMAT;
		}
		c->log_level = (int)lvl;
		return 0;
	}
	for (i = 0; i < sizeof(str_keys) / sizeof(str_keys[0]); i++)
		if (!strcmp(key, str_keys[i].key))
			return set_str((char *)c + str_keys[i].off,
				       VER_PATH_MAX, val, key, err, errlen);
	for (i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]); i++) {
		const struct num_key *k = &num_keys[i];

		if (strcmp(key, k->key))
			continue;
		if (ver_parse_u64(val, k->min, k->max, &v)) {
			snprintf(err, errlen,
				 "%s: expected a number from %llu to %llu", key,
				 (unsigned long long)k->min,
				 (unsigned long long)k->max);
			return ATT_E_FORMAT;
		}
		if (k->is_size)
			*(size_t *)((char *)c + k->off) = (size_t)v;
		else
			*(unsigned int *)((char *)c + k->off) = (unsigned int)v;
		return 0;
	}
	snprintf(err, errlen, "unknown setting '%s'", key);
	return ATT_E_INVAL;
}

static int set_kv(const char *key, const char *value, void *arg, char *err,
		  size_t errlen)
{
	return ver_config_set(arg, key, value, err, errlen);
}

int ver_config_load_file(struct ver_config *c, const char *path, char *err,
			 size_t errlen)
{
	struct att_buf b;
	char msg[320];
	int rc;

	att_buf_init(&b, VER_CONFIG_FILE_MAX);
	rc = att_buf_read_file(&b, path, VER_CONFIG_FILE_MAX);
	if (rc) {
		snprintf(err, errlen, "%s: cannot read (%s)", path,
			 att_strerror(rc));
		att_buf_release(&b);
		return rc;
	}
	rc = att_kv_parse((const char *)b.data, b.len, set_kv, c, msg,
			  sizeof(msg));
	if (rc)
		snprintf(err, errlen, "%s: %s", path, msg);
	att_buf_release(&b);
	return rc;
}

int ver_config_check(const struct ver_config *c, char *err, size_t errlen)
{
	if (!c->tls_cert[0] || !c->tls_key[0]) {
		snprintf(err, errlen,
			 "tls_cert and tls_key are required (no plain HTTP)");
		return ATT_E_INVAL;
	}
	if (!c->admin_ca[0] || !c->agent_ca[0]) {
		snprintf(err, errlen, "admin_ca and agent_ca are required");
		return ATT_E_INVAL;
	}
	if (!c->database[0]) {
		snprintf(err, errlen, "database is required");
		return ATT_E_INVAL;
	}
	return 0;
}
