// SPDX-License-Identifier: Apache-2.0
/*
 * boot_policy_json.c - the whitelist's "boot" section to and from JSON
 * (docs/whitelist.md, "Measured boot"), and a failure as JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/whitelist.h"
#include "boot_internal.h"
#include "wl_internal.h"

#define MAX_STAGES	    64
#define MAX_STAGE_DIGESTS   256
#define MAX_FILES	    1024
#define MAX_CMDLINE_PATTERN 8192

static void free_ids(struct boot_ids *s)
{
	free(s->v);
}

void att_boot_policy_free(struct att_boot_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < ATT_BV_COUNT; i++)
		free_ids(&p->var[i]);
	free_ids(&p->authorities);
	for (i = 0; i < p->nstages; i++)
		free(p->stages[i].v);
	free(p->stages);
	free(p->kernels.v);
	free(p->initrds.v);
	if (p->have_cmdline)
		regfree(&p->cmdline);
	free(p->cmdline_text);
	free(p);
}

static int bad(char *err, size_t n, const char *key, const char *what)
{
	snprintf(err, n, "boot.%s: %s", key, what);
	return ATT_E_FORMAT;
}

static int parse_id(struct json_object *v, struct boot_id *id)
{
	struct json_object *h = v, *o;
	size_t dl;
	int any = 0;

	memset(id, 0, sizeof(*id));
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val)
		{
			if (!strcmp(key, "id"))
				h = val;
			else if (!strcmp(key, "owner") &&
				 json_object_is_type(val, json_type_string) &&
				 !att_guid_parse(json_object_get_string(val),
						 id->owner))
				id->has_owner = 1;
			else
				return ATT_E_FORMAT;
			any |= !strcmp(key, "id");
		}
		if (!any)
			return ATT_E_FORMAT;
	}
	o = h;
	if (!json_object_is_type(o, json_type_string) ||
	    json_object_get_string_len(o) != 2 * ATT_BOOT_ID_LEN ||
	    att_hex_decode(json_object_get_string(o), 2 * ATT_BOOT_ID_LEN,
			   id->id, ATT_BOOT_ID_LEN, &dl) ||
	    dl != ATT_BOOT_ID_LEN)
		return ATT_E_FORMAT;
	return ATT_OK;
}

static int load_ids(struct boot_ids *s, struct json_object *v, const char *key,
		    char *err, size_t n)
{
	size_t i, len;

	if (!json_object_is_type(v, json_type_array))
		return bad(err, n, key, "must be an array");
	len = json_object_array_length(v);
	if (len > ATT_BOOT_MAX_SIGS)
		return bad(err, n, key, "more than 8192 entries");
	s->v = calloc(len ? len : 1, sizeof(*s->v));
	if (!s->v)
		return ATT_E_NOMEM;
	for (i = 0; i < len; i++)
		if (parse_id(json_object_array_get_idx(v, i), &s->v[i])) {
			snprintf(err, n,
				 "boot.%s[%zu]: must be 64 hex digits (the "
				 "SHA-256 of a certificate, or an EFI_CERT_"
				 "SHA256 hash) or {\"id\": hex, \"owner\": "
				 "GUID}",
				 key, i);
			return ATT_E_FORMAT;
		}
	s->n = len;
	s->present = 1;
	return ATT_OK;
}

/* "alg:hex", or hex whose length names the algorithm (SHA-1, -2). */
static int parse_digest(struct json_object *v, struct boot_digest *d)
{
	size_t dl;
	int rc;

	if (!json_object_is_type(v, json_type_string))
		return ATT_E_FORMAT;
	rc = att_wl_parse_digest(json_object_get_string(v),
				 (size_t)json_object_get_string_len(v), &d->alg,
				 d->d, &dl);
	if (rc || d->alg != ATT_HASH_NONE)
		return rc;
	d->alg = dl == 20   ? ATT_HASH_SHA1
		 : dl == 32 ? ATT_HASH_SHA256
		 : dl == 48 ? ATT_HASH_SHA384
			    : ATT_HASH_SHA512;
	return ATT_OK;
}

static int load_digests(struct boot_digests *s, struct json_object *v,
			size_t max, const char *key, size_t stage, char *err,
			size_t n)
{
	size_t i, len;

	/* A stage may be one digest or an array of them. */
	if (stage != (size_t)-1 && json_object_is_type(v, json_type_string)) {
		s->v = calloc(1, sizeof(*s->v));
		if (!s->v)
			return ATT_E_NOMEM;
		s->n = 1;
		s->present = 1;
		if (!parse_digest(v, &s->v[0]))
			return ATT_OK;
		snprintf(err, n, "boot.%s[%zu]: not a digest", key, stage);
		return ATT_E_FORMAT;
	}
	if (!json_object_is_type(v, json_type_array))
		return bad(err, n, key, "must be an array of digests");
	len = json_object_array_length(v);
	if (len > max) {
		snprintf(err, n, "boot.%s: more than %zu digests", key, max);
		return ATT_E_FORMAT;
	}
	s->v = calloc(len ? len : 1, sizeof(*s->v));
	if (!s->v)
		return ATT_E_NOMEM;
	for (i = 0; i < len; i++)
		if (parse_digest(json_object_array_get_idx(v, i), &s->v[i])) {
			if (stage == (size_t)-1)
				snprintf(err, n,
					 "boot.%s[%zu]: not a digest (hex of "
					 "a known length, or algo:hex)",
					 key, i);
			else
				snprintf(err, n,
					 "boot.%s[%zu][%zu]: not a digest "
					 "(hex of a known length, or "
					 "algo:hex)",
					 key, stage, i);
			return ATT_E_FORMAT;
		}
	s->n = len;
	s->present = 1;
	return ATT_OK;
}

static int load_stages(struct att_boot_policy *p, struct json_object *v,
		       char *err, size_t n)
{
	size_t i, len;
	int rc;

	if (!json_object_is_type(v, json_type_array))
		return bad(err, n, "boot_apps",
			   "must be an array of stages (arrays of digests)");
	len = json_object_array_length(v);
	if (len > MAX_STAGES)
		return bad(err, n, "boot_apps", "more than 64 stages");
	p->stages = calloc(len ? len : 1, sizeof(*p->stages));
	if (!p->stages)
		return ATT_E_NOMEM;
	p->have_apps = 1;
	for (i = 0; i < len; i++) {
		p->nstages = i + 1;
		rc = load_digests(&p->stages[i],
				  json_object_array_get_idx(v, i),
				  MAX_STAGE_DIGESTS, "boot_apps", i, err, n);
		if (rc)
			return rc;
		if (!p->stages[i].n) {
			snprintf(err, n,
				 "boot.boot_apps[%zu]: a stage allows at least "
				 "one digest",
				 i);
			return ATT_E_FORMAT;
		}
	}
	return ATT_OK;
}

static int load_cmdline(struct att_boot_policy *p, struct json_object *v,
			char *err, size_t n)
{
	const char *s = json_object_get_string(v);
	size_t len;
	char *re;
	int rc;

	if (!json_object_is_type(v, json_type_string))
		return bad(err, n, "cmdline", "must be a string (POSIX ERE)");
	len = (size_t)json_object_get_string_len(v);
	if (len > MAX_CMDLINE_PATTERN || strlen(s) != len)
		return bad(err, n, "cmdline",
			   "longer than 8192 bytes or holds a NUL");
	if (!wl_pattern_safe(s))
		return bad(err, n, "cmdline",
			   "stacked quantifiers or more than 4 bounds (or a "
			   "bound over 16)");
	re = malloc(len + 5);
	if (!re)
		return ATT_E_NOMEM;
	snprintf(re, len + 5, "^(%s)$", s);
	rc = regcomp(&p->cmdline, re, REG_EXTENDED | REG_NOSUB);
	free(re);
	if (rc)
		return bad(err, n, "cmdline",
			   "not a POSIX extended regular expression");
	p->have_cmdline = 1;
	p->cmdline_text = strdup(s);
	return p->cmdline_text ? ATT_OK : ATT_E_NOMEM;
}

static int load_key(struct att_boot_policy *p, const char *key,
		    struct json_object *val, char *err, size_t n)
{
	unsigned int i;

	if (!strcmp(key, "secure_boot")) {
		if (json_object_is_type(val, json_type_boolean))
			p->secure_boot = json_object_get_boolean(val);
		else if (json_object_is_type(val, json_type_string) &&
			 !strcmp(json_object_get_string(val), "any"))
			p->secure_boot = -1;
		else
			return bad(err, n, key,
				   "must be true, false or \"any\"");
		return ATT_OK;
	}
	for (i = 0; i < ATT_BV_DBX; i++)
		if (!strcmp(key, att_boot_var_key((enum att_boot_var)i)))
			return load_ids(&p->var[i], val, key, err, n);
	if (!strcmp(key, "dbx_required"))
		return load_ids(&p->var[ATT_BV_DBX], val, key, err, n);
	if (!strcmp(key, "authorities"))
		return load_ids(&p->authorities, val, key, err, n);
	if (!strcmp(key, "boot_apps"))
		return load_stages(p, val, err, n);
	if (!strcmp(key, "kernels"))
		return load_digests(&p->kernels, val, MAX_FILES, key,
				    (size_t)-1, err, n);
	if (!strcmp(key, "initrds"))
		return load_digests(&p->initrds, val, MAX_FILES, key,
				    (size_t)-1, err, n);
	if (!strcmp(key, "cmdline"))
		return load_cmdline(p, val, err, n);
	if (!strcmp(key, "separators")) {
		if (!json_object_is_type(val, json_type_boolean))
			return bad(err, n, key, "must be true or false");
		p->separators = json_object_get_boolean(val);
		return ATT_OK;
	}
	snprintf(err, n, "boot: unknown field '%.64s'", key);
	return ATT_E_FORMAT;
}

int att_boot_policy_from_json(struct json_object *o,
			      struct att_boot_policy **out, char *err,
			      size_t errlen)
{
	struct att_boot_policy *p;
	int rc = ATT_OK;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "boot: must be an object");
		return ATT_E_FORMAT;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return ATT_E_NOMEM;
	p->secure_boot = -1;
	p->separators = 1;
	json_object_object_foreach(o, key, val)
	{
		rc = load_key(p, key, val, err, errlen);
		if (rc)
			break;
	}
	if (rc) {
		att_boot_policy_free(p);
		return rc;
	}
	*out = p;
	return ATT_OK;
}

/* Building a section from a golden machine's facts. */

static struct json_object *digest_json(const struct att_boot_digest *d,
				       enum att_hash bank)
{
	char hex[2 * ATT_DIGEST_MAX + 1], txt[2 * ATT_DIGEST_MAX + 16];
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (d->alg[i] == bank) {
			att_hex_encode(d->d[i], att_hash_size(bank), hex);
			snprintf(txt, sizeof(txt), "%s:%s", att_hash_name(bank),
				 hex);
			return json_object_new_string(txt);
		}
	return NULL;
}

static struct json_object *sigs_json(const struct att_boot_sig *s, size_t n)
{
	struct json_object *a = json_object_new_array(), *o;
	char hex[2 * ATT_BOOT_ID_LEN + 1], g[ATT_GUID_TEXT];
	size_t i;

	for (i = 0; a && i < n; i++) {
		o = json_object_new_object();
		if (!o) {
			json_object_put(a);
			return NULL;
		}
		att_hex_encode(s[i].id, ATT_BOOT_ID_LEN, hex);
		att_guid_format(s[i].owner, g);
		json_object_object_add(o, "id", json_object_new_string(hex));
		json_object_object_add(o, "owner", json_object_new_string(g));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *files_json(const struct att_boot_digest *d, size_t n,
				      enum att_hash bank)
{
	struct json_object *a = json_object_new_array(), *s;
	size_t i;

	for (i = 0; a && i < n; i++)
		if ((s = digest_json(&d[i], bank)))
			json_object_array_add(a, s);
	return a;
}

/* The command lines seen, as an anchored ERE that matches exactly them. */
static struct json_object *cmdline_json(const struct att_boot_facts *f)
{
	struct json_object *o;
	size_t i, k, o_len = 0, cap = 1;
	char *re, *p;

	for (i = 0; i < f->ncmdlines; i++)
		cap += 2 * strlen(f->cmdlines[i].text) + 1;
	re = malloc(cap);
	if (!re)
		return NULL;
	for (i = 0; i < f->ncmdlines; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(f->cmdlines[k].text, f->cmdlines[i].text))
				break;
		if (k < i)
			continue;
		if (o_len)
			re[o_len++] = '|';
		for (p = f->cmdlines[i].text; *p; p++) {
			if (strchr(".[]()*+?{}|^$\\", *p))
				re[o_len++] = '\\';
			re[o_len++] = *p;
		}
	}
	re[o_len] = '\0';
	o = json_object_new_string(re);
	free(re);
	return o;
}

struct json_object *
att_boot_policy_json_from_facts(const struct att_boot_facts *f,
				enum att_hash bank)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "secure_boot",
			       f->secure_boot == 1
				       ? json_object_new_boolean(1)
				       : json_object_new_string("any"));
	for (i = 0; i < ATT_BV_COUNT; i++)
		if (f->var[i].seen)
			json_object_object_add(
				o,
				i == ATT_BV_DBX ? "dbx_required"
						: att_boot_var_key(
							  (enum att_boot_var)i),
				sigs_json(f->var[i].sig, f->var[i].n));
	if (f->nauth)
		json_object_object_add(o, "authorities",
				       sigs_json(f->authorities, f->nauth));
	a = json_object_new_array();
	for (i = 0; a && i < f->napps; i++) {
		struct json_object *st = json_object_new_array(),
				   *d = digest_json(&f->apps[i], bank);

		if (st && d)
			json_object_array_add(st, d);
		json_object_array_add(a, st);
	}
	json_object_object_add(o, "boot_apps", a);
	if (f->nkernels)
		json_object_object_add(
			o, "kernels",
			files_json(f->kernels, f->nkernels, bank));
	if (f->ninitrds)
		json_object_object_add(
			o, "initrds",
			files_json(f->initrds, f->ninitrds, bank));
	if (f->ncmdlines)
		json_object_object_add(o, "cmdline", cmdline_json(f));
	json_object_object_add(o, "separators", json_object_new_boolean(1));
	return o;
}

int att_boot_failure_json(const struct att_boot_failure *f,
			  struct json_object **out)
{
	struct json_object *e = json_object_new_object();
	char t[sizeof(f->detail)];
	int bad = !e;

	*out = NULL;
	if (e && f->has_ev) {
		bad |= json_object_object_add(
			e, "index",
			json_object_new_int64((int64_t)f->ev.index));
		bad |= json_object_object_add(
			e, "pcr", json_object_new_int((int)f->ev.pcr));
		bad |= json_object_object_add(
			e, "type",
			json_object_new_string(
				att_uefi_event_name(f->ev.type)));
	}
	snprintf(t, sizeof(t), "%s", f->detail);
	att_json_utf8_clean(t);
	if (e) {
		bad |= json_object_object_add(e, "rule",
					      json_object_new_string(f->rule));
		bad |= json_object_object_add(e, "detail",
					      json_object_new_string(t));
	}
	if (bad) {
		json_object_put(e);
		return ATT_E_NOMEM;
	}
	*out = e;
	return 0;
}
