// SPDX-License-Identifier: Apache-2.0
/*
 * verdict.c - the typed verdict (see verdict.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/json.h"
#include "verdict.h"

#define VER_REASON_TEXT_MAX 400

static const char *const kind_names[VER_REASON_KIND_COUNT] = {
	[VER_REASON_QUOTE] = "quote",
	[VER_REASON_CLONE] = "cloned-tpm",
	[VER_REASON_BOOT] = "boot",
	[VER_REASON_UEFI] = "uefi-log",
	[VER_REASON_LATTICE] = "lattice",
	[VER_REASON_STATIC_PCR] = "static-pcr",
	[VER_REASON_LOG] = "log",
	[VER_REASON_NO_WHITELIST] = "no-whitelist",
	[VER_REASON_OTHER] = "other",
};

const char *ver_reason_kind_name(enum ver_reason_kind k)
{
	return (unsigned int)k < VER_REASON_KIND_COUNT ? kind_names[k] : NULL;
}

void ver_verdict_init(struct ver_verdict *v, enum att_agent_state state)
{
	memset(v, 0, sizeof(*v));
	v->state = state;
}

void ver_verdict_release(struct ver_verdict *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nreasons; i++)
		free(v->reasons[i].text);
	free(v->reasons);
	json_object_put(v->doc);
	ver_verdict_init(v, ATT_AGENT_NONE);
}

void ver_verdict_add(struct ver_verdict *v, enum ver_reason_kind kind,
		     enum att_verdict entry, const char *fmt, ...)
{
	char msg[VER_REASON_TEXT_MAX];
	struct ver_reason *r;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Paths are the host's bytes, and %.200s may cut a character. */
	att_json_utf8_clean(msg);
	v->refused = 1;
	for (i = 0; i < v->nreasons; i++)
		if (!strcmp(v->reasons[i].text, msg))
			return;
	if (v->nreasons == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 8;

		r = realloc(v->reasons, cap * sizeof(*r));
		if (!r)
			return;
		v->reasons = r;
		v->cap = cap;
	}
	r = &v->reasons[v->nreasons];
	r->kind = kind;
	r->entry = kind == VER_REASON_ENTRY ? entry : ATT_V_COUNT;
	r->text = strdup(msg);
	if (r->text)
		v->nreasons++;
}

int ver_verdict_reasons_json(const struct ver_verdict *v,
			     struct json_object *arr)
{
	struct json_object *s;
	size_t i;

	for (i = 0; i < v->nreasons; i++) {
		s = json_object_new_string(v->reasons[i].text);
		if (!s || json_object_array_add(arr, s)) {
			json_object_put(s);
			return ATT_E_NOMEM;
		}
	}
	return 0;
}

struct json_object *ver_verdict_json(const struct ver_verdict *v)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	if (!o || !arr || ver_verdict_reasons_json(v, arr)) {
		json_object_put(o);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(
		o, "state",
		json_object_new_string(att_agent_state_name(v->state)));
	json_object_object_add(o, "reasons", arr);
	return o;
}

void ver_verdict_stale(struct ver_verdict *v, int64_t last_attest)
{
	ver_verdict_add(v, VER_REASON_STALE, ATT_V_COUNT,
			"no attestation since %lld", (long long)last_attest);
}
