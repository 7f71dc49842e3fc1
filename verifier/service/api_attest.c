// SPDX-License-Identifier: Apache-2.0
/*
 * api_attest.c - the agent's side of attestation (agent certificate):
 *
 *   POST /v1/attestation/challenge {"agent_id"}
 *        -> 201 {"agent_id", "nonce", "expires", "pcr_selection",
 *                "logs": [{"name", "pcr", "next_entry", "first_entry"}]}
 *   POST /v1/attestation/evidence {"agent_id", "nonce", "quote",
 *        "signature", "pcrs": {"sha256": {"0": hex, ...}},
 *        "logs": [{"name": "ima", "start": N, "entries": base64}, ...],
 *        "uefi_log": base64 (optional), "next_challenge": true (optional)}
 *        -> 200 the result (state trusted/untrusted, reasons, failures),
 *           with "next_challenge": the next round's challenge when asked
 *
 * The caller must hold the client certificate issued to agent_id at its
 * current enrollment. Nonces live in the database (single use, bound to
 * the agent, expiring), so any replica may take the evidence; the agent's
 * row is written only if nobody else wrote it meanwhile (409 otherwise).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/rand.h>

#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "attest/pcrs.h"
#include "attest/replay.h"
#include "attest/whitelist.h"
#include "attest.h"
#include "logstate.h"
#include "metrics.h"
#include "service.h"
#include "verdict.h"
#include "webhook.h"
#include "wlcache.h"

#define VER_NONCE_BYTES	  32
#define VER_SEL_BOOT	  0x3ffu /* sha256 PCRs 0-9: boot_aggregate, UEFI */
#define VER_QUOTE_MAX	  2048
#define VER_PCRS_JSON_MAX 16384

int ver_require_agent(struct ver_req *rq, struct ver_resp *rs, const char *id,
		      struct att_agent_rec *a)
{
	int rc;

	att_agent_rec_init(a);
	if (rq->peer.role == VER_ROLE_NONE)
		return ver_error(rs, 401, "unauthenticated",
				 "an agent client certificate is required"),
		       ATT_E_AUTH;
	if (rq->peer.role != VER_ROLE_AGENT || strcmp(rq->peer.id, id))
		return ver_error(rs, 403, "wrong_agent",
				 "this certificate is not agent '%.64s''s", id),
		       ATT_E_AUTH;
	rc = att_store_agent_get(rq->ctx->store, id, a);
	if (rc == ATT_E_NOT_FOUND)
		return ver_error(rs, 403, "not_enrolled",
				 "agent '%s' is not enrolled", id),
		       ATT_E_AUTH;
	if (rc)
		return ver_store_error(rs, rc, "agent"), rc;
	if (a->state == ATT_AGENT_ENROLLING || !a->ak_pub ||
	    strcmp(a->cert_fpr, rq->peer.fpr)) {
		att_agent_rec_release(a);
		return ver_error(rs, 403, "certificate_superseded",
				 "this certificate is not the one of agent "
				 "'%s''s current enrollment",
				 id),
		       ATT_E_AUTH;
	}
	return 0;
}

/*
 * Every PCR a check reads: 0-9 (boot_aggregate, the UEFI log and its
 * boot policy), the PCR of every log asked for, and the static PCRs
 * (their SHA-256 values: the selection is of that bank; a static value
 * of another bank is reported as not quoted).
 */
static uint32_t sel_mask(const struct ver_ctx *ctx)
{
	const struct ver_config *cfg = ctx->cfg;
	uint32_t m = VER_SEL_BOOT;
	unsigned int i;

	for (i = 0; i < cfg->nlogs; i++)
		m |= 1u << cfg->logs[i].pcr;
	if (ctx->static_pcrs)
		m |= ctx->static_pcrs->mask[ATT_HASH_SHA256];
	return m;
}

/*
 * Expired nonces stay an hour, to be answered as expired; they are
 * deleted once a minute per process (a DELETE per challenge would be one
 * more write transaction per round).
 */
static void nonce_gc(struct ver_ctx *ctx, int64_t now)
{
	int64_t next = atomic_load(&ctx->nonce_gc_next);

	if (now < next || !atomic_compare_exchange_strong(&ctx->nonce_gc_next,
							  &next, now + 60))
		return;
	att_store_nonce_gc(ctx->store, now - 3600);
}

/* A fresh nonce for a challenge, with what is stored beside it. */
struct ver_nonce {
	char hex[2 * VER_NONCE_BYTES + 1];
	/* {"sha256": mask, "at": t}: the selection asked for, and when */
	char stored[64];
	uint32_t mask;
	struct att_store_nonce rec;
};

static int nonce_new(const struct ver_ctx *ctx, int64_t now,
		     struct ver_nonce *n)
{
	const struct ver_config *cfg = ctx->cfg;
	uint8_t raw[VER_NONCE_BYTES];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return ATT_E_CRYPTO;
	att_hex_encode(raw, sizeof(raw), n->hex);
	n->mask = sel_mask(ctx);
	snprintf(n->stored, sizeof(n->stored), "{\"sha256\":%lu,\"at\":%lld}",
		 (unsigned long)n->mask, (long long)now);
	n->rec.nonce_hex = n->hex;
	n->rec.expires = now + cfg->nonce_lifetime;
	n->rec.request_json = n->stored;
	return 0;
}

/*
 * The challenge of nonce n (stored) to agent a: the PCR selection, and
 * where each log goes on according to a's saved log states.
 */
static int challenge_json(const struct ver_config *cfg,
			  const struct att_agent_rec *a,
			  const struct ver_nonce *n, int boot_policy,
			  struct json_object **out)
{
	struct json_object *o, *sel, *arr, *log;
	struct ver_logstates *ls = NULL;
	const struct att_replay_state *st;
	unsigned int i;
	int rc;

	*out = NULL;
	rc = ver_logstates_new(&ls);
	if (rc)
		return rc;
	/* An unusable saved state asks from 0; the evidence says why. */
	if (a->replay && a->reset_count >= 0 &&
	    ver_logstates_decode(a->replay, a->replay_len, ls))
		ls->n = 0;
	o = json_object_new_object();
	sel = json_object_new_object();
	arr = json_object_new_array();
	for (i = 0; i < ATT_PCR_COUNT; i++)
		if (n->mask & (1u << i))
			json_object_array_add(arr, json_object_new_int((int)i));
	json_object_object_add(sel, "sha256", arr);
	json_object_object_add(o, "agent_id", json_object_new_string(a->id));
	json_object_object_add(o, "nonce", json_object_new_string(n->hex));
	json_object_object_add(o, "expires",
			       json_object_new_int64(n->rec.expires));
	json_object_object_add(o, "pcr_selection", sel);
	arr = json_object_new_array();
	for (i = 0; i < cfg->nlogs; i++) {
		st = ver_logstates_find(ls, cfg->logs[i].name);
		log = json_object_new_object();
		json_object_object_add(
			log, "name", json_object_new_string(cfg->logs[i].name));
		json_object_object_add(
			log, "pcr", json_object_new_int((int)cfg->logs[i].pcr));
		json_object_object_add(
			log, "next_entry",
			json_object_new_int64(st ? (int64_t)st->next_index
						 : 0));
		if (st && st->next_index && st->first_alg != ATT_HASH_NONE) {
			char id[ATT_LIST_ID_MAX];

			if (!att_list_id_format(st->first_alg, st->first_digest,
						id, sizeof(id)))
				json_object_object_add(
					log, "first_entry",
					json_object_new_string(id));
		}
		json_object_array_add(arr, log);
	}
	json_object_object_add(o, "logs", arr);
	/*
	 * Once per boot: until this boot's firmware log has replayed; every
	 * round when the agent's whitelist has a boot policy (it judges the
	 * log, and the policy may have changed since the last one).
	 */
	if (!(ls->flags & VER_LS_UEFI_VERIFIED) || boot_policy)
		json_object_object_add(o, "uefi_log",
				       json_object_new_boolean(1));
	ver_logstates_free(ls);
	*out = o;
	return 0;
}

int ver_api_challenge(struct ver_req *rq, struct ver_resp *rs)
{
	static const char *const fields[] = {"agent_id", NULL};
	struct json_object *req = NULL, *o = NULL;
	struct att_agent_rec a;
	struct ver_nonce n;
	struct ver_wlref *ref = NULL;
	int64_t now = (int64_t)time(NULL), wl_version = 0;
	const char *id;
	int rc, boot_policy = 0;

	att_agent_rec_init(&a);
	if (ver_parse_body(rq, rs, &req))
		return 0;
	if (ver_fields_only(rs, req, fields) ||
	    ver_field_str(rs, req, "agent_id", 1, &id) ||
	    ver_require_agent(rq, rs, id, &a))
		goto out;
	if (nonce_new(rq->ctx, now, &n)) {
		ver_error(rs, 500, "internal", "no random bytes");
		goto out;
	}
	rc = att_store_nonce_put(rq->ctx->store, n.hex, id, n.rec.expires,
				 n.stored);
	if (rc) {
		ver_store_error(rs, rc, "nonce");
		goto out;
	}
	ver_metrics_challenge(rq->ctx->metrics, VER_CHALLENGE_REQUEST);
	nonce_gc(rq->ctx, now);
	if (a.wl_name[0] &&
	    !ver_wlcache_get(rq->ctx->wlc, rq->ctx->store, a.wl_name,
			     a.wl_version, &ref, &wl_version)) {
		boot_policy = att_wl_boot(ver_wlref_wl(ref)) != NULL;
		ver_wlref_put(rq->ctx->wlc, ref);
	}
	if (challenge_json(rq->ctx->cfg, &a, &n, boot_policy, &o)) {
		ver_error(rs, 500, "internal", "out of memory");
		goto out;
	}
	ver_json_reply(rs, 201, o);
out:
	json_object_put(o);
	att_agent_rec_release(&a);
	json_object_put(req);
	return 0;
}

struct ev_log {
	int present;
	int64_t start;
	uint8_t *data;
	size_t len;
};

struct ev_in {
	uint8_t *quote, *sig, *uefi, nonce[VER_NONCE_BYTES];
	size_t quote_len, sig_len, uefi_len;
	struct ev_log logs[VER_MAX_LOGS]; /* in the configuration's order */
	struct att_pcrs pcrs;
	int want_next; /* "next_challenge": true */
};

/* "logs": one object per log, each a log this verifier asks for. */
static int parse_logs(struct ver_resp *rs, const struct ver_config *cfg,
		      struct json_object *req, struct ev_in *in, size_t max)
{
	static const char *const fields[] = {"name", "start", "entries", NULL};
	struct json_object *arr, *log;
	const char *name, *b64;
	struct ev_log *l;
	size_t i, n, k;
	int64_t start;

	if (!json_object_object_get_ex(req, "logs", &arr) ||
	    !json_object_is_type(arr, json_type_array) ||
	    (n = json_object_array_length(arr)) < 1 || n > VER_MAX_LOGS) {
		ver_error(rs, 400, "wrong_type",
			  "field 'logs' must be an array of 1 to %d logs",
			  VER_MAX_LOGS);
		return ATT_E_FORMAT;
	}
	for (i = 0; i < n; i++) {
		log = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(log, json_type_object)) {
			ver_error(rs, 400, "wrong_type",
				  "logs[%zu] must be an object", i);
			return ATT_E_FORMAT;
		}
		if (ver_fields_only(rs, log, fields) ||
		    ver_field_str(rs, log, "name", 1, &name) ||
		    ver_field_int(rs, log, "start", 1, 0, INT64_MAX, &start) ||
		    ver_field_str(rs, log, "entries", 1, &b64))
			return ATT_E_FORMAT;
		for (k = 0; k < cfg->nlogs; k++)
			if (!strcmp(cfg->logs[k].name, name))
				break;
		if (k == cfg->nlogs) {
			ver_error(rs, 400, "unknown_log",
				  "logs[%zu].name: '%.32s' is not a log this "
				  "verifier asks for",
				  i, name);
			return ATT_E_FORMAT;
		}
		l = &in->logs[k];
		if (l->present) {
			ver_error(rs, 400, "duplicate_log",
				  "logs[%zu]: log '%s' sent twice", i,
				  cfg->logs[k].name);
			return ATT_E_FORMAT;
		}
		l->present = 1;
		l->start = start;
		if (*b64 && ver_field_b64(rs, log, "entries", 1, max, &l->data,
					  &l->len))
			return ATT_E_FORMAT;
	}
	return 0;
}

static int parse_evidence(struct ver_req *rq, struct ver_resp *rs,
			  struct json_object *req, struct ev_in *in,
			  const char **id, const char **nonce)
{
	static const char *const fields[] = {
		"agent_id", "nonce",	"quote",	  "signature", "pcrs",
		"logs",	    "uefi_log", "next_challenge", NULL};
	struct json_object *pcrs, *v;
	const char *txt;
	char err[256];
	size_t n;

	if (ver_fields_only(rs, req, fields) ||
	    ver_field_str(rs, req, "agent_id", 1, id) ||
	    ver_field_str(rs, req, "nonce", 1, nonce))
		return ATT_E_FORMAT;
	if (att_hex_decode(*nonce, strlen(*nonce), in->nonce, sizeof(in->nonce),
			   &n) ||
	    n != VER_NONCE_BYTES) {
		ver_error(rs, 400, "bad_nonce_format",
			  "field 'nonce' must be the %d hex digits issued",
			  2 * VER_NONCE_BYTES);
		return ATT_E_FORMAT;
	}
	if (ver_field_b64(rs, req, "quote", 1, VER_QUOTE_MAX, &in->quote,
			  &in->quote_len) ||
	    ver_field_b64(rs, req, "signature", 1, VER_QUOTE_MAX, &in->sig,
			  &in->sig_len))
		return ATT_E_FORMAT;
	if (!json_object_object_get_ex(req, "pcrs", &pcrs) ||
	    !json_object_is_type(pcrs, json_type_object)) {
		ver_error(rs, 400, "wrong_type",
			  "field 'pcrs' must be an object {bank: {pcr: hex}}");
		return ATT_E_FORMAT;
	}
	txt = json_object_to_json_string_length(pcrs, JSON_C_TO_STRING_PLAIN,
						&n);
	if (!txt || n > VER_PCRS_JSON_MAX ||
	    att_pcrs_parse_json(&in->pcrs, txt, n, err, sizeof(err))) {
		ver_error(rs, 400, "bad_pcrs", "field 'pcrs': %s",
			  txt && n <= VER_PCRS_JSON_MAX ? err : "too large");
		return ATT_E_FORMAT;
	}
	if (ver_field_b64(rs, req, "uefi_log", 0, rq->ctx->cfg->max_body,
			  &in->uefi, &in->uefi_len))
		return ATT_E_FORMAT;
	if (json_object_object_get_ex(req, "next_challenge", &v)) {
		if (!json_object_is_type(v, json_type_boolean)) {
			ver_error(rs, 400, "wrong_type",
				  "field 'next_challenge' must be a boolean");
			return ATT_E_FORMAT;
		}
		in->want_next = json_object_get_boolean(v);
	}
	return parse_logs(rs, rq->ctx->cfg, req, in, rq->ctx->cfg->max_body);
}

static int take_nonce(struct ver_req *rq, struct ver_resp *rs,
		      const char *nonce, const char *id, uint32_t *mask,
		      int64_t *issued)
{
	struct json_object *o, *sel, *at;
	char *stored = NULL, err[64];
	int rc;

	rc = att_store_nonce_take(rq->ctx->store, nonce, id,
				  (int64_t)time(NULL), &stored);
	switch (rc) {
	case 0:
		break;
	case ATT_E_NOT_FOUND:
		return ver_error(rs, 403, "bad_nonce",
				 "the nonce is unknown or already used"),
		       rc;
	case ATT_E_AUTH:
		return ver_error(rs, 403, "bad_nonce",
				 "the nonce was issued to another agent"),
		       rc;
	case ATT_E_TIMEOUT:
		return ver_error(rs, 403, "nonce_expired",
				 "the nonce has expired"),
		       rc;
	default:
		return ver_store_error(rs, rc, "nonce"), rc;
	}
	rc = stored ? att_json_parse(stored, strlen(stored), 4, &o, err,
				     sizeof(err))
		    : ATT_E_FORMAT;
	free(stored);
	if (rc)
		return ver_error(rs, 500, "internal", "stored nonce unusable"),
		       rc;
	/* Nonces issued before selections were stored: PCRs 0-10. */
	*mask = json_object_object_get_ex(o, "sha256", &sel)
			? (uint32_t)json_object_get_int64(sel)
			: 0x7ffu;
	/* Nonces issued before their time was stored: unknown (0). */
	*issued = json_object_object_get_ex(o, "at", &at)
			  ? json_object_get_int64(at)
			  : 0;
	json_object_put(o);
	return 0;
}

/* One evidence round, from the request to the answer (ver_api_evidence). */
struct round {
	struct ver_req *rq;
	struct timespec t0;
	int64_t now;
	struct json_object *req;
	struct ev_in in;
	const char *id, *nonce;
	uint32_t mask;	/* the PCR selection the nonce was issued with */
	int64_t issued; /* when it was issued (0: unknown) */
	struct att_agent_rec a;
	struct ver_wlref *ref; /* the agent's whitelist, or NULL */
	int64_t wl_version;
	enum att_agent_state before;
	struct ver_verdict v;
	int hist;	    /* the verdict is an event for the history */
	struct ver_nonce n; /* the next challenge, when in.want_next */
	int hrc, nrc;	    /* the history row's and the next nonce's */
};

/* Step 1: the body, the agent's certificate, the nonce, the whitelist. */
static int round_read(struct round *r, struct ver_resp *rs)
{
	struct ver_req *rq = r->rq;
	int rc;

	if (ver_parse_body(rq, rs, &r->req) ||
	    parse_evidence(rq, rs, r->req, &r->in, &r->id, &r->nonce) ||
	    ver_require_agent(rq, rs, r->id, &r->a) ||
	    take_nonce(rq, rs, r->nonce, r->id, &r->mask, &r->issued))
		return ATT_E_INVAL;
	if (!r->a.wl_name[0])
		return 0;
	rc = ver_wlcache_get(rq->ctx->wlc, rq->ctx->store, r->a.wl_name,
			     r->a.wl_version, &r->ref, &r->wl_version);
	if (rc && rc != ATT_E_NOT_FOUND)
		return ver_store_error(rs, rc, "whitelist"), rc;
	return 0;
}

/* What ver_attest_run judges: the evidence read, with the settings. */
static void round_evidence(const struct round *r, const struct att_pcr_sel *sel,
			   struct ver_evidence *ev)
{
	const struct ver_ctx *ctx = r->rq->ctx;
	const struct ev_in *in = &r->in;
	unsigned int i;

	memset(ev, 0, sizeof(*ev));
	ev->quote = in->quote;
	ev->quote_len = in->quote_len;
	ev->sig = in->sig;
	ev->sig_len = in->sig_len;
	ev->nonce = in->nonce;
	ev->nonce_len = sizeof(in->nonce);
	ev->sel = sel;
	ev->pcrs = &in->pcrs;
	ev->static_pcrs = ctx->static_pcrs;
	ev->uefi_log = in->uefi;
	ev->uefi_log_len = in->uefi_len;
	ev->require_uefi_log = (int)ctx->cfg->require_uefi_log;
	ev->challenge_at = r->issued;
	ev->clock_drift_pct = ctx->cfg->clock_drift;
	ev->clock_slack_ms = ctx->cfg->clock_slack;
	ev->nlogs = ctx->cfg->nlogs;
	for (i = 0; i < ev->nlogs; i++) {
		ev->logs[i].name = ctx->cfg->logs[i].name;
		ev->logs[i].pcr = ctx->cfg->logs[i].pcr;
		ev->logs[i].present = in->logs[i].present;
		ev->logs[i].start = (uint64_t)in->logs[i].start;
		ev->logs[i].data = in->logs[i].data ? in->logs[i].data
						    : (const uint8_t *)"";
		ev->logs[i].len = in->logs[i].len;
	}
	/* a layered whitelist: the result names the layer of each entry */
	for (i = 0; r->ref && i < ver_wlref_layers(r->ref); i++) {
		ev->layer_names[i] = ver_wlref_layer_name(r->ref, i);
		ev->layer_versions[i] = ver_wlref_layer_version(r->ref, i);
		ev->nlayers++;
	}
}

/* Step 2: the verdict (attest.c), over the selection of the nonce. */
static int round_judge(struct round *r, struct ver_resp *rs)
{
	struct ver_ctx *ctx = r->rq->ctx;
	struct ver_evidence ev;
	struct att_pcr_sel sel;
	int rc;

	memset(&sel, 0, sizeof(sel));
	att_pcr_sel_add(&sel, ATT_HASH_SHA256, r->mask);
	round_evidence(r, &sel, &ev);
	r->before = r->a.state;
	rc = ver_attest_run(ctx->akc, &r->a,
			    r->ref ? ver_wlref_wl(r->ref) : NULL, r->a.wl_name,
			    r->wl_version, &ev, r->now, &r->v);
	if (rc) {
		ver_metrics_attestation(ctx->metrics, VER_RESULT_ERROR, 0);
		ver_error(rs, 500, "internal", "verification failed: %s",
			  att_strerror(rc));
	}
	return rc;
}

/*
 * Step 3: the agent's new state, its history row and the next nonce, in
 * one transaction.
 *
 * The next round's challenge, when asked for, is stored in the
 * verdict's transaction: the agent then needs one request per round
 * instead of two. It is not part of the stored result; when it cannot
 * be made the verdict still answers 200 and the agent asks for a
 * challenge as before.
 *
 * History holds the agent's events: a state change, a new boot, and
 * every verdict that is not trusted (each may list new failures). A
 * trusted verdict like the one before is the agent's last result only:
 * a row for each would grow the table without end (a row a round for
 * every agent) and tell nothing new.
 */
static int round_store(struct round *r, struct ver_resp *rs)
{
	struct ver_ctx *ctx = r->rq->ctx;
	int rc;

	if (r->in.want_next && nonce_new(ctx, r->now, &r->n)) {
		att_warn("%s: no random bytes for the next challenge", r->id);
		r->in.want_next = 0;
	}
	r->hist = r->before != r->v.state || r->v.state != ATT_AGENT_TRUSTED ||
		  r->v.new_boot;
	rc = att_store_agent_update_hist(ctx->store, &r->a, r->now, r->hist,
					 r->in.want_next ? &r->n.rec : NULL,
					 &r->hrc, &r->nrc);
	if (rc) {
		/* Another replica wrote this agent meanwhile: nothing kept. */
		ver_store_error(rs, rc, "agent");
		return rc;
	}
	if (r->hist && r->hrc)
		att_warn("%s: history not written: %s", r->id,
			 att_strerror(r->hrc));
	return 0;
}

/* Step 4: what the verdict tells the operators: metrics, log, webhook. */
static void round_account(struct round *r)
{
	struct ver_ctx *ctx = r->rq->ctx;
	const struct ver_verdict *v = &r->v;
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (v->state != ATT_AGENT_TRUSTED)
		ver_metrics_verdict(ctx->metrics, v);
	ver_metrics_attestation(
		ctx->metrics,
		v->state != ATT_AGENT_TRUSTED ? VER_RESULT_UNTRUSTED
					      : VER_RESULT_TRUSTED,
		(double)(t1.tv_sec - r->t0.tv_sec) +
			(double)(t1.tv_nsec - r->t0.tv_nsec) / 1e9);
	/* The events at info; a trusted round like the one before, debug
	 * (at fleet rates a line each would be most of the log). */
	att_log(r->hist ? ATT_LOG_INFO : ATT_LOG_DEBUG, "attest: %s: %s%s",
		r->id, att_agent_state_name(v->state),
		v->new_boot ? " (new boot)" : "");
	if (r->before != v->state)
		ver_webhook_state_change(ctx->webhook, r->id, r->before, r->now,
					 v);
}

/* Step 5: 200 with the result, and the next challenge when it was made. */
static void round_answer(struct round *r, struct ver_resp *rs)
{
	struct ver_ctx *ctx = r->rq->ctx;
	struct json_object *next = NULL;

	json_object_object_add(r->v.doc, "agent_id",
			       json_object_new_string(r->id));
	if (r->in.want_next && r->nrc)
		att_warn("%s: verdict sent without a next challenge: %s", r->id,
			 att_strerror(r->nrc));
	if (r->in.want_next && !r->nrc) {
		ver_metrics_challenge(ctx->metrics, VER_CHALLENGE_VERDICT);
		nonce_gc(ctx, r->now); /* agents may never ask again */
		if (!challenge_json(ctx->cfg, &r->a, &r->n,
				    r->ref && att_wl_boot(ver_wlref_wl(r->ref)),
				    &next))
			json_object_object_add(r->v.doc, "next_challenge",
					       next);
	}
	ver_json_reply(rs, 200, r->v.doc);
}

int ver_api_evidence(struct ver_req *rq, struct ver_resp *rs)
{
	struct round r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.rq = rq;
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	r.now = (int64_t)time(NULL);
	att_agent_rec_init(&r.a);
	ver_verdict_init(&r.v, ATT_AGENT_NONE);
	if (!round_read(&r, rs) && !round_judge(&r, rs) &&
	    !round_store(&r, rs)) {
		round_account(&r);
		round_answer(&r, rs);
	}
	ver_verdict_release(&r.v);
	ver_wlref_put(rq->ctx->wlc, r.ref);
	free(r.in.quote);
	free(r.in.sig);
	for (i = 0; i < VER_MAX_LOGS; i++)
		free(r.in.logs[i].data);
	free(r.in.uefi);
	att_agent_rec_release(&r.a);
	json_object_put(r.req);
	return 0;
}
