// SPDX-License-Identifier: Apache-2.0
/*
 * attest.c - the evidence pipeline (see attest.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/boot.h"
#include "attest/buf.h"
#include "attest/check.h"
#include "attest/check_json.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/ima.h"
#include "attest/log.h"
#include "attest/replay.h"
#include "attest/tpm_key.h"
#include "attest/uefi.h"
#include "attest/whitelist.h"
#include "akcache.h"
#include "attest.h"
#include "verdict.h"

static const enum att_hash replay_banks[] = {ATT_HASH_SHA1, ATT_HASH_SHA256};

struct run {
	struct ver_verdict *v;
	struct json_object *res, *reasons, *logs;
	/* slim.ko's lattice, from the first list that carries it */
	struct att_lat_state lat;
	const char *lat_log;
	/*
	 * The PCR values the verified quote covers: the only values any
	 * check reads (the evidence's "pcrs" may carry more; they are
	 * ignored).
	 */
	struct att_pcrs quoted;
	const struct ver_evidence *ev;
};

/* A reason of kind k (not a failing entry's: failure_reason). */
#define reason(r, k, ...) ver_verdict_add((r)->v, (k), ATT_V_COUNT, __VA_ARGS__)

/* A layered whitelist's layer i as the result names it. */
static const char *layer_name(const struct ver_evidence *ev, int i)
{
	return i >= 0 && (size_t)i < ev->nlayers && ev->layer_names[i]
		       ? ev->layer_names[i]
		       : NULL;
}

/* The layers of the agent's whitelist: [{"name", "version"}]. */
static void add_layer_refs(struct json_object *w, const struct ver_evidence *ev)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < ev->nlayers; i++) {
		o = json_object_new_object();
		json_object_object_add(
			o, "name",
			json_object_new_string(layer_name(ev, (int)i)));
		json_object_object_add(
			o, "version",
			json_object_new_int64(ev->layer_versions[i]));
		json_object_array_add(arr, o);
	}
	json_object_object_add(w, "layers", arr);
}

/* The layers of the agent's whitelist for the result (n 0: not layered). */
static struct att_check_layers layers_of(const struct ver_evidence *ev)
{
	struct att_check_layers l = {.n = ev->nlayers,
				     .names = ev->layer_names,
				     .versions = ev->layer_versions};

	return l;
}

/* Replays exactly n entries of the list from its start (the prefix). */
static int advance(struct att_replay *rp, const struct ver_log_in *in,
		   uint64_t n)
{
	struct att_ima_reader *rd;
	struct att_ima_entry e;
	uint64_t i;
	char why[ATT_DETAIL_LEN];
	int rc, ok;

	rc = att_ima_reader_new_mem(in->data, in->len, ATT_IMA_FMT_BINARY,
				    ATT_HASH_SHA1, NULL, &rd);
	if (rc)
		return rc;
	rc = att_ima_reader_seek(rd, in->start, 0);
	for (i = 0; !rc && i < n; i++) {
		rc = att_ima_reader_next(rd, &e);
		if (!rc)
			rc = att_replay_extend(rp, &e, &ok);
		/* the prefix was judged: fold its lattice records again */
		if (!rc && att_is_slim_event(&e))
			rc = att_lat_step(att_replay_lattice(rp), NULL, &e, why,
					  sizeof(why));
		if (rc > 0)
			rc = ATT_E_INTERNAL; /* it was accepted a moment ago */
	}
	att_ima_reader_free(rd);
	return rc;
}

/* From the saved state of the log, or from zero. */
static int restore(struct att_replay *rp, const struct att_replay_state *saved)
{
	att_replay_reset(rp);
	return saved ? att_replay_restore(rp, saved) : ATT_OK;
}

/* The lattice state of this log, when it has one and none came before. */
static void take_lattice(struct run *r, const struct att_lat_state *st,
			 const char *log)
{
	if (r->lat_log || (!st->loaded && !st->gap))
		return;
	r->lat = *st;
	r->lat_log = log;
}

/* A failed entry as a reason: slim.ko's records by what they say. */
static void failure_reason(struct run *r, const struct att_check_failure *f)
{
	switch (f->verdict) {
	case ATT_V_BOOT_AGGREGATE_BAD:
		if (f->detail[0]) {
			ver_verdict_add(r->v, VER_REASON_ENTRY, f->verdict,
					"%s: %s", att_verdict_name(f->verdict),
					f->detail);
			break;
		}
		ver_verdict_add(r->v, VER_REASON_ENTRY, f->verdict,
				"%s: %.200s", att_verdict_name(f->verdict),
				f->path ? f->path : "");
		break;
	case ATT_V_GAP:
	case ATT_V_LATTICE_MALFORMED:
	case ATT_V_LATTICE_POLICY:
		ver_verdict_add(r->v, VER_REASON_ENTRY, f->verdict, "%s: %s",
				att_verdict_name(f->verdict), f->detail);
		break;
	default:
		ver_verdict_add(r->v, VER_REASON_ENTRY, f->verdict,
				"%s: %.200s", att_verdict_name(f->verdict),
				f->path ? f->path : "");
	}
}

/*
 * One log: its new entries from the saved state (NULL: from entry 0),
 * replayed against the quoted value of its PCR and judged. On a trusted
 * prefix, rp holds the state after it and *advanced is set. A list
 * sent from entry 0 when a later entry was asked for is a list the agent
 * found shorter than that (slim.ko removed and loaded again: a new list
 * in the same boot): it is judged whole, from zero.
 */
static int check_log(struct run *r, const char *id, const struct att_wl *wl,
		     const struct ver_log_in *in,
		     const struct att_replay_state *saved,
		     struct att_replay *rp, int *advanced)
{
	struct att_check_opts opts = {.quoted = &r->quoted,
				      .pcr_mask = 1u << in->pcr,
				      .boot_aggregate_quoted = 1};
	struct att_check_result cr;
	struct att_check_layers layers;
	struct att_ima_reader *rd = NULL;
	struct json_object *log = json_object_new_object();
	uint64_t expect;
	int rc;

	*advanced = 0;
	json_object_array_add(r->logs, log);
	json_object_object_add(log, "name", json_object_new_string(in->name));
	json_object_object_add(log, "pcr", json_object_new_int((int)in->pcr));
	json_object_object_add(log, "sent",
			       json_object_new_boolean(in->present));
	if (!in->present) {
		reason(r, VER_REASON_LOG,
		       "log %s: not sent (the verifier asks for it)", in->name);
		if (saved)
			take_lattice(r, &saved->lat, in->name);
		return 0;
	}
	json_object_object_add(log, "start",
			       json_object_new_int64((int64_t)in->start));
	att_check_result_init(&cr);
	if (in->start == 0 && saved && saved->next_index) {
		att_info("%s: log %s sent from entry 0 (a new list in this "
			 "boot): judged whole",
			 id, in->name);
		saved = NULL;
	}
	rc = restore(rp, saved);
	if (rc) {
		att_err("%s: stored replay state of log %s unusable: %s", id,
			in->name, att_strerror(rc));
		return rc;
	}
	expect = att_replay_state(rp)->next_index;
	if (in->start != expect) {
		reason(r, VER_REASON_LOG,
		       "log %s: expected entries from %llu, got them from %llu",
		       in->name, (unsigned long long)expect,
		       (unsigned long long)in->start);
		take_lattice(r, &att_replay_state(rp)->lat, in->name);
		return 0;
	}
	if (!wl)
		reason(r, VER_REASON_NO_WHITELIST,
		       "no whitelist is assigned to this agent");
	rc = att_ima_reader_new_mem(in->data, in->len, ATT_IMA_FMT_BINARY,
				    ATT_HASH_SHA1, NULL, &rd);
	if (!rc)
		rc = att_ima_reader_seek(rd, in->start, 0);
	if (!rc)
		rc = att_check_list(rd, wl, rp, &opts, &cr);
	att_ima_reader_free(rd);
	if (rc && cr.status != ATT_CHECK_ERROR) {
		att_check_result_release(&cr);
		return rc;
	}
	layers = layers_of(r->ev);
	att_check_result_json(log, &cr, 0, &layers);
	/* the TPM vouches for the saved state and the matched prefix */
	take_lattice(r, &cr.lattice, in->name);
	if (cr.status == ATT_CHECK_ERROR) {
		reason(r, VER_REASON_LOG, "log %s: unreadable: %s", in->name,
		       cr.errmsg);
	} else if (!cr.replay_matched) {
		reason(r, VER_REASON_LOG,
		       "log %s: no prefix of the entries replays to the quoted "
		       "PCR %u",
		       in->name, in->pcr);
	} else if (cr.failures_total || cr.lattice_refusal[0]) {
		size_t i;

		for (i = 0; i < cr.nfailures && i < 20; i++)
			failure_reason(r, &cr.failures[i]);
		if (cr.failures_total > cr.nfailures || cr.nfailures > 20)
			reason(r, VER_REASON_MORE,
			       "... %llu failing entries in all (log %s)",
			       (unsigned long long)cr.failures_total, in->name);
		if (cr.lattice_refusal[0])
			reason(r, VER_REASON_LATTICE, "lattice: %s",
			       cr.lattice_refusal);
	} else if (wl) {
		/* Trusted so far: move the saved state over the prefix. */
		rc = restore(rp, saved);
		if (!rc)
			rc = advance(rp, in, cr.verified);
		if (rc) {
			att_check_result_release(&cr);
			return rc;
		}
		*advanced = 1;
	}
	att_check_result_release(&cr);
	return 0;
}

/* Every log asked for; the saved states move over trusted prefixes. */
static int check_logs(struct run *r, struct att_agent_rec *a,
		      const struct att_wl *wl, const struct ver_evidence *ev,
		      struct att_replay *rp, int uefi_ok)
{
	struct ver_logstates *ls = NULL;
	unsigned int i;
	int rc, advanced, changed = 0;
	uint8_t *st;
	size_t stlen;

	rc = ver_logstates_new(&ls);
	if (!rc && a->replay)
		rc = ver_logstates_decode(a->replay, a->replay_len, ls);
	if (rc) {
		att_err("%s: stored replay state unusable: %s", a->id,
			att_strerror(rc));
		goto out;
	}
	/* The boot's firmware log: remembered until the next reboot. */
	if (uefi_ok && !(ls->flags & VER_LS_UEFI_VERIFIED)) {
		ls->flags |= VER_LS_UEFI_VERIFIED;
		changed = 1;
	}
	if (ev->require_uefi_log && !(ls->flags & VER_LS_UEFI_VERIFIED) &&
	    !ev->uefi_log)
		reason(r, VER_REASON_UEFI,
		       "uefi log: required once per boot, not sent yet");
	for (i = 0; i < ev->nlogs; i++) {
		rc = check_log(r, a->id, wl, &ev->logs[i],
			       ver_logstates_find(ls, ev->logs[i].name), rp,
			       &advanced);
		if (!rc && advanced) {
			rc = ver_logstates_set(ls, ev->logs[i].name,
					       att_replay_state(rp));
			changed = 1;
		}
		if (rc)
			goto out;
	}
	if (changed) {
		rc = ver_logstates_encode(ls, &st, &stlen);
		if (rc)
			goto out;
		free(a->replay);
		a->replay = st;
		a->replay_len = stlen;
	}
out:
	ver_logstates_free(ls);
	return rc;
}

/*
 * slim.ko's lattice: shown when a list carries it; a whitelist that
 * requires a mode requires a list that shows it.
 */
static void check_lattice(struct run *r, const struct att_wl *wl)
{
	const struct att_lat_policy *pol = wl ? att_wl_lattice(wl) : NULL;

	if (r->lat_log)
		json_object_object_add(r->res, "lattice",
				       att_lat_state_json(&r->lat, r->lat_log));
	if (pol && pol->mode >= 0 && !r->lat.loaded)
		reason(r, VER_REASON_LATTICE,
		       "lattice: no slim.ko state in any list (the whitelist "
		       "requires mode %s)",
		       att_sev_mode_name((unsigned int)pol->mode));
}

/* The UEFI event log replayed against the quoted PCRs 0-7. */
/* Returns 1 when the log replays to every quoted PCR 0-7. */
static int check_uefi(struct run *r, const struct ver_evidence *ev)
{
	struct json_object *o = json_object_new_object();
	struct att_uefi_info info;
	struct att_pcrs rp;
	const uint8_t *q, *v;
	uint8_t zero[ATT_DIGEST_MAX];
	char err[200];
	unsigned int i, b, compared = 0;
	int ok = 1;

	json_object_object_add(r->res, "uefi", o);
	att_pcrs_clear(&rp);
	memset(&info, 0, sizeof(info));
	if (att_uefi_replay(ev->uefi_log, ev->uefi_log_len, NULL, &rp, &info,
			    err, sizeof(err))) {
		reason(r, VER_REASON_UEFI, "uefi log: unreadable: %s", err);
		json_object_object_add(o, "matched",
				       json_object_new_boolean(0));
		return 0;
	}
	json_object_object_add(o, "events",
			       json_object_new_int64((int64_t)info.events));
	for (b = 0; b < ATT_HASH_COUNT; b++)
		for (i = 0; i < 8; i++) {
			q = att_pcrs_get(&r->quoted, (enum att_hash)b, i);
			if (!q)
				continue;
			v = att_pcrs_get(&rp, (enum att_hash)b, i);
			if (!v) {
				/* Never extended: its reset value. */
				memset(zero, 0, sizeof(zero));
				if (i == 0)
					zero[att_hash_size((enum att_hash)b) -
					     1] = info.startup_locality;
				v = zero;
			}
			compared++;
			if (memcmp(q, v, att_hash_size((enum att_hash)b))) {
				reason(r, VER_REASON_UEFI,
				       "uefi log: does not replay to the "
				       "quoted "
				       "PCR %u (%s)",
				       i, att_hash_name((enum att_hash)b));
				ok = 0;
			}
		}
	if (!compared) {
		reason(r, VER_REASON_UEFI,
		       "uefi log: no quoted PCR 0-7 to compare with");
		ok = 0;
	}
	json_object_object_add(o, "matched", json_object_new_boolean(ok));
	return ok;
}

/* A boot policy's result in the result document and the reasons. */
static void boot_json(struct run *r, struct json_object *uefi,
		      const struct att_boot_result *br)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	char t[ATT_BOOT_DETAIL + 80];
	size_t i;

	json_object_object_add(uefi, "boot", o);
	json_object_object_add(
		o, "status",
		json_object_new_string(br->status == ATT_BOOT_PASS ? "pass"
				       : br->status == ATT_BOOT_FAIL
					       ? "fail"
					       : "malformed"));
	json_object_object_add(o, "failures_total",
			       json_object_new_int64((int64_t)br->total));
	json_object_object_add(o, "failures", arr);
	if (br->status == ATT_BOOT_MALFORMED) {
		json_object_object_add(o, "error",
				       json_object_new_string(br->errmsg));
		reason(r, VER_REASON_BOOT, "boot: malformed event data: %s",
		       br->errmsg);
		return;
	}
	for (i = 0; i < br->nfailures; i++) {
		const struct att_boot_failure *f = &br->failures[i];
		struct json_object *e;

		if (!att_boot_failure_json(f, &e))
			json_object_array_add(arr, e);
		if (i < 20) {
			att_boot_failure_text(f, t, sizeof(t));
			reason(r, VER_REASON_BOOT, "boot: %s", t);
		}
	}
	if (br->total > 20)
		reason(r, VER_REASON_BOOT, "boot: ... %zu failures in all",
		       br->total);
}

/*
 * The whitelist's measured boot policy on a log that replayed to the
 * quoted PCRs (its digests are the TPM's). 1 when it passes; an
 * internal error is returned in *rc (never trusted).
 */
static int check_boot(struct run *r, const struct ver_evidence *ev,
		      const struct att_boot_policy *pol, int *rc)
{
	struct json_object *uefi = json_object_object_get(r->res, "uefi");
	struct att_boot_result br;
	int pass;

	att_boot_result_init(&br);
	*rc = att_boot_judge(pol, ev->uefi_log, ev->uefi_log_len, NULL, &br);
	if (*rc) {
		att_boot_result_release(&br);
		return 0;
	}
	boot_json(r, uefi, &br);
	pass = br.status == ATT_BOOT_PASS;
	att_boot_result_release(&br);
	return pass;
}

static void check_static(struct run *r, const struct att_pcrs *expect)
{
	const uint8_t *want, *got;
	unsigned int b, i;

	for (b = 0; b < ATT_HASH_COUNT; b++)
		for (i = 0; i < ATT_PCR_COUNT; i++) {
			if (!(expect->mask[b] & (1u << i)))
				continue;
			want = att_pcrs_get(expect, (enum att_hash)b, i);
			got = att_pcrs_get(&r->quoted, (enum att_hash)b, i);
			if (!got)
				reason(r, VER_REASON_STATIC_PCR,
				       "static PCR %u (%s) was not quoted", i,
				       att_hash_name((enum att_hash)b));
			else if (memcmp(want, got,
					att_hash_size((enum att_hash)b)))
				reason(r, VER_REASON_STATIC_PCR,
				       "static PCR %u (%s) is not the expected "
				       "value",
				       i, att_hash_name((enum att_hash)b));
		}
}

/*
 * A clock that went backwards, or fell behind the wall time, within one
 * resetCount and restartCount: a clone of this agent's TPM (or its state
 * rolled back) is quoting. Remembered in a->clone until an admin clears
 * it (DELETE /v1/agents/ID/clone).
 */
static void suspect_clone(struct att_agent_rec *a, const char *what,
			  const struct att_quote_info *cur)
{
	if (!a->clone[0])
		snprintf(a->clone, sizeof(a->clone),
			 "%s: last accepted clock %lld ms (resetCount %lld, "
			 "restartCount %lld), this quote's %llu ms "
			 "(resetCount %u, restartCount %u)",
			 what, (long long)a->tpm_clock,
			 (long long)a->reset_count, (long long)a->restart_count,
			 (unsigned long long)cur->clock, cur->reset_count,
			 cur->restart_count);
}

/*
 * The quote's clockInfo against the last accepted one. 1: the quote's
 * clock is refused (reasons given, nothing of it kept); 0: go on, with
 * *reboot set on a new boot.
 */
static int check_clock(struct run *r, struct att_agent_rec *a,
		       const struct ver_evidence *ev,
		       const struct att_quote_info *info, int *reboot)
{
	struct att_quote_info prev;
	enum att_quote_reason why;
	struct json_object *q = json_object_object_get(r->res, "quote");
	uint64_t min_ms;
	char what[120];
	int rc, refused = 0;

	memset(&prev, 0, sizeof(prev));
	prev.reset_count = (uint32_t)a->reset_count;
	prev.restart_count = (uint32_t)a->restart_count;
	prev.clock = (uint64_t)a->tpm_clock;
	rc = att_quote_check_clock(a->reset_count < 0 ? NULL : &prev, info,
				   reboot, &why);
	json_object_object_add(q, "reset_count",
			       json_object_new_int64(info->reset_count));
	json_object_object_add(q, "restart_count",
			       json_object_new_int64(info->restart_count));
	json_object_object_add(q, "reboot", json_object_new_boolean(*reboot));
	if (rc || why != ATT_QR_OK) {
		switch (why) {
		case ATT_QR_CLOCK_BACKWARDS:
			suspect_clone(a, "the TPM clock went backwards", info);
			break;
		case ATT_QR_RESET_BACKWARDS:
			suspect_clone(a, "the TPM resetCount went backwards",
				      info);
			break;
		case ATT_QR_RESTART_BACKWARDS:
			suspect_clone(a, "the TPM restartCount went backwards",
				      info);
			break;
		default:
			break;
		}
		reason(r, VER_REASON_QUOTE, "quote: %s",
		       att_quote_reason_str(why));
		refused = 1;
	} else if (!*reboot && a->reset_count >= 0 && a->clock_at &&
		   ev->challenge_at &&
		   info->restart_count == (uint32_t)a->restart_count &&
		   att_quote_clock_behind((uint64_t)a->tpm_clock, a->clock_at,
					  info->clock, ev->challenge_at,
					  ev->clock_drift_pct,
					  ev->clock_slack_ms, &min_ms)) {
		snprintf(what, sizeof(what),
			 "the TPM clock fell behind the wall time (it "
			 "advanced %llu ms where at least %llu ms passed)",
			 (unsigned long long)(info->clock -
					      (uint64_t)a->tpm_clock),
			 (unsigned long long)min_ms);
		suspect_clone(a, what, info);
		refused = 1;
	}
	/* Sticky: every verdict says it until an admin clears it. */
	if (a->clone[0])
		reason(r, VER_REASON_CLONE, "possible cloned TPM: %s",
		       a->clone);
	return refused;
}

int ver_attest_run(struct ver_akcache *akc, struct att_agent_rec *a,
		   const struct att_wl *wl, const char *wl_name,
		   int64_t wl_version, const struct ver_evidence *ev,
		   int64_t now, struct ver_verdict *v)
{
	struct att_quote_info info;
	enum att_quote_reason why;
	struct att_tpm_key *ak = NULL;
	struct att_replay *rp = NULL;
	struct json_object *q, *w;
	struct run r;
	int rc, reboot = 0, uefi_ok = 0;
	char *txt;

	ver_verdict_init(v, ATT_AGENT_NONE);
	memset(&r, 0, sizeof(r));
	r.v = v;
	r.ev = ev;
	r.res = json_object_new_object();
	if (!r.res)
		return ATT_E_NOMEM;
	/* Children are owned by r.res from the moment they are added. */
	r.reasons = json_object_new_array();
	r.logs = json_object_new_array();
	q = json_object_new_object();
	json_object_object_add(r.res, "at", json_object_new_int64(now));
	json_object_object_add(r.res, "quote", q);
	json_object_object_add(r.res, "logs", r.logs);
	json_object_object_add(r.res, "reasons", r.reasons);
	if (!r.reasons || !r.logs || !q) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	if (wl) {
		w = json_object_new_object();
		json_object_object_add(w, "name",
				       json_object_new_string(wl_name));
		json_object_object_add(w, "version",
				       json_object_new_int64(wl_version));
		if (ev->nlayers)
			add_layer_refs(w, ev);
		json_object_object_add(r.res, "whitelist", w);
	}
	rc = ver_akcache_get(akc, a->ak_pub, a->ak_pub_len, &ak);
	if (!rc)
		rc = att_replay_new(replay_banks, 2, &rp);
	if (rc)
		goto out;

	/* 1. Quote: signature, nonce, selection, PCR digest. */
	rc = att_quote_verify(ak, ev->quote, ev->quote_len, ev->sig,
			      ev->sig_len, ev->nonce, ev->nonce_len, ev->sel,
			      ev->pcrs, &info, &why);
	if (rc || why != ATT_QR_OK) {
		reason(&r, VER_REASON_QUOTE, "quote: %s",
		       att_quote_reason_str(why));
		rc = 0;
		goto done;
	}
	/* From here on, only what the quote covers. */
	rc = att_pcrs_quoted(ev->pcrs, ev->sel, &r.quoted);
	if (rc)
		goto out; /* verified above: cannot be missing */
	/* 2. Clock: a cloned TPM is untrusted until an admin says not. */
	rc = check_clock(&r, a, ev, &info, &reboot);
	if (rc > 0) {
		rc = 0;
		goto done;
	}
	if (reboot || a->reset_count < 0) {
		/* A new boot (or the first quote): the log starts at 0. */
		free(a->replay);
		a->replay = NULL;
		a->replay_len = 0;
		a->boot_count++;
		v->new_boot = 1;
	}
	/* Static PCR values, when configured (quoted values only count). */
	if (ev->static_pcrs)
		check_static(&r, ev->static_pcrs);
	if (ev->uefi_log)
		uefi_ok = check_uefi(&r, ev);
	/* A whitelist's boot policy judges the log of every round. */
	if (uefi_ok && wl && att_wl_boot(wl)) {
		uefi_ok = check_boot(&r, ev, att_wl_boot(wl), &rc);
		if (rc)
			goto out;
	} else if (!ev->uefi_log && wl && att_wl_boot(wl)) {
		reason(&r, VER_REASON_BOOT,
		       "boot: the whitelist has a boot policy and the "
		       "evidence has no UEFI event log");
	}
	a->reset_count = info.reset_count;
	a->restart_count = info.restart_count;
	a->tpm_clock = (int64_t)info.clock;
	a->clock_at = now;

	/* 3. The logs: replay with prefix matching, whitelist verdicts. */
	rc = check_logs(&r, a, wl, ev, rp, uefi_ok);
	if (rc)
		goto out;
	check_lattice(&r, wl);
done:
	/* The verdict: trusted when no check gave a reason. */
	v->state = v->refused ? ATT_AGENT_UNTRUSTED : ATT_AGENT_TRUSTED;
	a->state = v->state;
	if (ver_verdict_reasons_json(v, r.reasons)) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	json_object_object_add(
		r.res, "state",
		json_object_new_string(att_agent_state_name(v->state)));
	a->last_attest = now;
	txt = strdup(json_object_to_json_string_ext(
		r.res,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!txt) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	free(a->last_result);
	a->last_result = txt;
	v->doc = r.res;
	r.res = NULL;
out:
	json_object_put(r.res);
	att_replay_free(rp);
	att_tpm_key_free(ak);
	if (rc)
		ver_verdict_release(v);
	return rc;
}
