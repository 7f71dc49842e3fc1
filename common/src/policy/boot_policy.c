// SPDX-License-Identifier: Apache-2.0
/*
 * boot_policy.c - the "boot" section's rules over a log's facts
 * (docs/whitelist.md, "Measured boot"). Every failure names the event
 * and the rule; a log whose data does not parse is MALFORMED, never
 * accepted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "boot_internal.h"

#define MAX_KEPT 64

void att_boot_result_init(struct att_boot_result *r)
{
	memset(r, 0, sizeof(*r));
}

void att_boot_result_release(struct att_boot_result *r)
{
	free(r->failures);
	att_boot_result_init(r);
}

static int fail(struct att_boot_result *r, const struct att_boot_ev *ev,
		const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct att_boot_result *r, const struct att_boot_ev *ev,
		const char *rule, const char *fmt, ...)
{
	struct att_boot_failure *f;
	va_list ap;

	r->status = ATT_BOOT_FAIL;
	r->total++;
	if (r->nfailures >= MAX_KEPT)
		return ATT_OK;
	f = realloc(r->failures, (r->nfailures + 1) * sizeof(*f));
	if (!f)
		return ATT_E_NOMEM;
	r->failures = f;
	f = &f[r->nfailures++];
	memset(f, 0, sizeof(*f));
	if (ev) {
		f->has_ev = 1;
		f->ev = *ev;
	}
	f->rule = rule;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	return ATT_OK;
}

void att_boot_failure_text(const struct att_boot_failure *f, char *out,
			   size_t outlen)
{
	if (f->has_ev)
		snprintf(out, outlen, "event %llu (PCR %u, %s): %s",
			 (unsigned long long)f->ev.index, f->ev.pcr,
			 att_uefi_event_name(f->ev.type), f->detail);
	else
		snprintf(out, outlen, "%s", f->detail);
}

/* The digest as the message shows it: sha256 when there is one. */
static void digest_text(const struct att_boot_digest *d, char *out, size_t n)
{
	char hex[2 * ATT_DIGEST_MAX + 1];
	unsigned int i, k = 0;

	for (i = 0; i < d->n; i++)
		if (d->alg[i] == ATT_HASH_SHA256)
			k = i;
	if (!d->n) {
		snprintf(out, n, "(no digest)");
		return;
	}
	att_hex_encode(d->d[k], att_hash_size(d->alg[k]), hex);
	snprintf(out, n, "%s:%s%s%.100s%s", att_hash_name(d->alg[k]), hex,
		 d->path ? " (" : "", d->path ? d->path : "",
		 d->path ? ")" : "");
}

static int digest_in(const struct att_boot_digest *d,
		     const struct boot_digests *s)
{
	size_t i;
	unsigned int k;

	for (i = 0; i < s->n; i++)
		for (k = 0; k < d->n; k++)
			if (d->alg[k] == s->v[i].alg &&
			    !memcmp(d->d[k], s->v[i].d,
				    att_hash_size(d->alg[k])))
				return 1;
	return 0;
}

static int id_in(const struct att_boot_sig *g, const struct boot_ids *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!memcmp(g->id, s->v[i].id, ATT_BOOT_ID_LEN) &&
		    (!s->v[i].has_owner ||
		     !memcmp(g->owner, s->v[i].owner, ATT_GUID_LEN)))
			return 1;
	return 0;
}

static int check_secure_boot(const struct att_boot_policy *p,
			     const struct att_boot_facts *f,
			     struct att_boot_result *r)
{
	if (p->secure_boot < 0 || p->secure_boot == f->secure_boot)
		return ATT_OK;
	if (f->secure_boot < 0)
		return fail(r, NULL, "secure_boot",
			    "no SecureBoot variable in the log (the policy "
			    "requires Secure Boot %s)",
			    p->secure_boot ? "on" : "off");
	return fail(r, &f->secure_boot_ev, "secure_boot",
		    "Secure Boot is %s, the policy requires it %s",
		    f->secure_boot ? "on" : "off",
		    p->secure_boot ? "on" : "off");
}

static const char *var_name(unsigned int v)
{
	static const char *const names[ATT_BV_COUNT] = {"PK", "KEK", "db",
							"dbx"};

	return names[v];
}

static int check_vars(const struct att_boot_policy *p,
		      const struct att_boot_facts *f, struct att_boot_result *r)
{
	char hex[2 * ATT_BOOT_ID_LEN + 1], g[ATT_GUID_TEXT];
	const char *rule;
	unsigned int v;
	size_t i;
	int rc;

	for (v = 0; v < ATT_BV_COUNT; v++) {
		const struct boot_ids *s = &p->var[v];

		if (!s->present)
			continue;
		rule = v == ATT_BV_DBX ? "dbx_required"
				       : att_boot_var_key((enum att_boot_var)v);
		if (!f->var[v].seen) {
			rc = fail(r, NULL, rule,
				  "no %s variable in the log (EV_EFI_"
				  "VARIABLE_DRIVER_CONFIG, PCR 7)",
				  var_name(v));
			if (rc)
				return rc;
			continue;
		}
		if (v == ATT_BV_DBX) {
			/* every required entry is in the host's dbx */
			for (i = 0; i < s->n; i++) {
				size_t k;

				for (k = 0; k < f->var[v].n; k++)
					if (!memcmp(f->var[v].sig[k].id,
						    s->v[i].id,
						    ATT_BOOT_ID_LEN))
						break;
				if (k < f->var[v].n)
					continue;
				att_hex_encode(s->v[i].id, ATT_BOOT_ID_LEN,
					       hex);
				rc = fail(r, &f->var[v].ev, rule,
					  "dbx lacks the required entry %s",
					  hex);
				if (rc)
					return rc;
			}
			continue;
		}
		for (i = 0; i < f->var[v].n; i++) {
			const struct att_boot_sig *sg = &f->var[v].sig[i];

			if (id_in(sg, s))
				continue;
			att_hex_encode(sg->id, ATT_BOOT_ID_LEN, hex);
			att_guid_format(sg->owner, g);
			rc = fail(r, &f->var[v].ev, rule,
				  "%s entry %s %s (owner %s) is not in the "
				  "allowed set",
				  var_name(v),
				  sg->kind == ATT_SIG_X509     ? "certificate"
				  : sg->kind == ATT_SIG_SHA256 ? "hash"
							       : "signature",
				  hex, g);
			if (rc)
				return rc;
		}
	}
	if (p->authorities.present)
		for (i = 0; i < f->nauth; i++) {
			if (id_in(&f->authorities[i], &p->authorities))
				continue;
			att_hex_encode(f->authorities[i].id, ATT_BOOT_ID_LEN,
				       hex);
			rc = fail(r, NULL, "authorities",
				  "an image was verified by db certificate %s, "
				  "not an allowed authority",
				  hex);
			if (rc)
				return rc;
		}
	return ATT_OK;
}

static int check_apps(const struct att_boot_policy *p,
		      const struct att_boot_facts *f, struct att_boot_result *r)
{
	char d[2 * ATT_DIGEST_MAX + 140];
	size_t i;
	int rc;

	if (!p->have_apps)
		return ATT_OK;
	for (i = 0; i < f->napps; i++) {
		digest_text(&f->apps[i], d, sizeof(d));
		if (i >= p->nstages)
			rc = fail(r, &f->apps[i].ev, "boot_apps",
				  "boot application %zu, %s, is past the "
				  "policy's %zu stages",
				  i + 1, d, p->nstages);
		else if (!digest_in(&f->apps[i], &p->stages[i]))
			rc = fail(r, &f->apps[i].ev, "boot_apps",
				  "digest %s not an allowed boot application "
				  "at stage %zu",
				  d, i + 1);
		else
			rc = ATT_OK;
		if (rc)
			return rc;
	}
	if (f->napps < p->nstages)
		return fail(r, NULL, "boot_apps",
			    "%zu boot applications in the log (PCR 4), the "
			    "policy has %zu stages",
			    f->napps, p->nstages);
	return ATT_OK;
}

static int check_files(const struct boot_digests *s,
		       const struct att_boot_digest *d, size_t n,
		       const char *rule, const char *what,
		       struct att_boot_result *r)
{
	char t[2 * ATT_DIGEST_MAX + 140];
	size_t i;
	int rc;

	if (!s->present)
		return ATT_OK;
	if (!n)
		return fail(r, NULL, rule, "no %s measured in the log (PCR 9)",
			    what);
	for (i = 0; i < n; i++) {
		if (digest_in(&d[i], s))
			continue;
		digest_text(&d[i], t, sizeof(t));
		rc = fail(r, &d[i].ev, rule, "digest %s not an allowed %s", t,
			  what);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

static int check_cmdline(const struct att_boot_policy *p,
			 const struct att_boot_facts *f,
			 struct att_boot_result *r)
{
	size_t i;
	int rc;

	if (!p->have_cmdline)
		return ATT_OK;
	if (!f->ncmdlines)
		return fail(r, NULL, "cmdline",
			    "no kernel command line in the log (grub's "
			    "kernel_cmdline, PCR 8)");
	for (i = 0; i < f->ncmdlines; i++) {
		if (!regexec(&p->cmdline, f->cmdlines[i].text, 0, NULL, 0))
			continue;
		rc = fail(r, &f->cmdlines[i].ev, "cmdline",
			  "kernel command line '%.200s' does not match the "
			  "policy's pattern",
			  f->cmdlines[i].text);
		if (rc)
			return rc;
	}
	return ATT_OK;
}

int att_boot_judge_facts(const struct att_boot_policy *p,
			 const struct att_boot_facts *f,
			 struct att_boot_result *r)
{
	unsigned int pcr;
	size_t i;
	int rc;

	r->status = ATT_BOOT_PASS;
	for (i = 0; i < f->nbad; i++) {
		rc = fail(r, &f->bad[i].ev, f->bad[i].rule, "%s",
			  f->bad[i].detail);
		if (rc)
			return rc;
	}
	if ((rc = check_secure_boot(p, f, r)) || (rc = check_vars(p, f, r)) ||
	    (rc = check_apps(p, f, r)) ||
	    (rc = check_files(&p->kernels, f->kernels, f->nkernels, "kernels",
			      "kernel", r)) ||
	    (rc = check_files(&p->initrds, f->initrds, f->ninitrds, "initrds",
			      "initrd", r)) ||
	    (rc = check_cmdline(p, f, r)))
		return rc;
	if (p->separators)
		for (pcr = 0; pcr < 8; pcr++)
			if (!((f->separators | f->bad_separators) &
			      (1u << pcr)) &&
			    (rc = fail(r, NULL, "separators",
				       "no EV_SEPARATOR in PCR %u", pcr)))
				return rc;
	return ATT_OK;
}

int att_boot_judge(const struct att_boot_policy *p, const uint8_t *log,
		   size_t len, const struct att_uefi_limits *lim,
		   struct att_boot_result *r)
{
	struct att_boot_facts *f = NULL;
	int rc;

	rc = att_boot_facts_read(log, len, lim, &f, r->errmsg,
				 sizeof(r->errmsg));
	if (rc == ATT_E_NOMEM || rc == ATT_E_CRYPTO || rc == ATT_E_INTERNAL)
		return rc;
	if (rc) {
		r->status = ATT_BOOT_MALFORMED;
		return ATT_OK;
	}
	rc = att_boot_judge_facts(p, f, r);
	att_boot_facts_free(f);
	return rc;
}
