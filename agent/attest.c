// SPDX-License-Identifier: Apache-2.0
/*
 * attest.c - one attestation round.
 */
#include "attest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "attest/json.h"
#include "attest/log.h"
#include "attest/replay.h"
#include "attest/tpm_quote.h"

#define NONCE_MAX      64
#define PCR_READ_TRIES 3

static int post_json(struct att_http *h, const char *path,
		     struct json_object *o, long *status,
		     struct json_object **reply)
{
	struct att_http_resp r = {0};
	const char *body = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char err[200];
	int rc;

	*reply = NULL;
	rc = att_http_request(h, "POST", path, body, strlen(body), &r);
	*status = r.status;
	if (!rc && r.body.len)
		rc = att_json_parse((const char *)r.body.data, r.body.len, 16,
				    reply, err, sizeof(err));
	if (rc && rc != ATT_E_NET)
		att_err("%s: unreadable reply (HTTP %ld)", path, r.status);
	att_http_resp_release(&r);
	return rc;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* {"sha256": [0, 1, ...], ...} */
static int parse_selection(struct json_object *o, struct att_pcr_sel *sel)
{
	struct json_object *s;

	memset(sel, 0, sizeof(*sel));
	if (!json_object_object_get_ex(o, "pcr_selection", &s) ||
	    !json_object_is_type(s, json_type_object))
		return ATT_E_FORMAT;
	json_object_object_foreach(s, bank, arr)
	{
		enum att_hash h = att_hash_by_name(bank, strlen(bank));
		uint32_t mask = 0;
		size_t i, n;

		if (h == ATT_HASH_NONE ||
		    !json_object_is_type(arr, json_type_array))
			return ATT_E_UNSUPPORTED;
		n = json_object_array_length(arr);
		for (i = 0; i < n; i++) {
			int64_t p = json_object_get_int64(
				json_object_array_get_idx(arr, i));

			if (p < 0 || p >= ATT_PCR_COUNT)
				return ATT_E_FORMAT;
			mask |= 1u << p;
		}
		if (att_pcr_sel_add(sel, h, mask))
			return ATT_E_FORMAT;
	}
	return sel->count ? ATT_OK : ATT_E_FORMAT;
}

static int pcrs_equal(const struct att_pcr_sel *sel, const struct att_pcrs *a,
		      const struct att_pcrs *b)
{
	unsigned int i, p;

	for (i = 0; i < sel->count; i++)
		for (p = 0; p < ATT_PCR_COUNT; p++) {
			const uint8_t *x, *y;

			if (!(sel->b[i].mask & (1u << p)))
				continue;
			x = att_pcrs_get(a, sel->b[i].bank, p);
			y = att_pcrs_get(b, sel->b[i].bank, p);
			if (!x || !y ||
			    memcmp(x, y, att_hash_size(sel->b[i].bank)))
				return 0;
		}
	return 1;
}

/*
 * Quotes and reads the PCRs the quote covers; if a PCR moved in between
 * (a file was measured meanwhile), does it again, a few times.
 */
static int quote(struct att_esys *tpm, const uint8_t *nonce, size_t nlen,
		 const struct att_pcr_sel *sel, struct att_buf *attest,
		 struct att_buf *sig, struct att_pcrs *pcrs)
{
	struct att_pcrs before;
	int rc, i;

	for (i = 0; i < PCR_READ_TRIES; i++) {
		att_pcrs_clear(&before);
		att_pcrs_clear(pcrs);
		attest->len = 0;
		sig->len = 0;
		if ((rc = att_esys_pcr_read(tpm, sel, &before)) ||
		    (rc = att_esys_quote(tpm, nonce, nlen, sel, attest, sig)) ||
		    (rc = att_esys_pcr_read(tpm, sel, pcrs)))
			return rc;
		if (pcrs_equal(sel, &before, pcrs))
			return ATT_OK;
	}
	/* The verifier will say the digest does not match: not our call. */
	att_warn("PCRs kept moving while quoting; sending the last quote");
	return ATT_OK;
}

static struct json_object *pcrs_json(const struct att_pcr_sel *sel,
				     const struct att_pcrs *pcrs)
{
	struct json_object *o = json_object_new_object();
	unsigned int i, p;

	for (i = 0; o && i < sel->count; i++) {
		struct json_object *b = json_object_new_object();
		enum att_hash h = sel->b[i].bank;

		for (p = 0; b && p < ATT_PCR_COUNT; p++) {
			const uint8_t *v = att_pcrs_get(pcrs, h, p);
			char hex[2 * ATT_DIGEST_MAX + 1], key[4];

			if (!(sel->b[i].mask & (1u << p)) || !v)
				continue;
			att_hex_encode(v, att_hash_size(h), hex);
			snprintf(key, sizeof(key), "%u", p);
			json_object_object_add(b, key,
					       json_object_new_string(hex));
		}
		json_object_object_add(o, att_hash_name(h), b);
	}
	return o;
}

static char *b64(const uint8_t *p, size_t n)
{
	char *s = malloc(att_b64_enclen(n) + 1);

	if (s)
		att_b64_encode(p, n, s);
	return s;
}

/*
 * *replaced: the challenge names the identity of the list the verifier
 * has replayed (first_entry) and this list's entry 0 is another one.
 * Without first_entry (an older verifier) nothing is known: 0.
 */
static int same_list(struct agent_log *src, struct json_object *asked,
		     int *replaced)
{
	const char *id = jstr(asked, "first_entry");
	uint8_t digest[ATT_DIGEST_MAX];
	enum att_hash alg;
	int rc, same;

	*replaced = 0;
	if (!id)
		return ATT_OK;
	if (att_list_id_parse(id, &alg, digest)) {
		att_err("log %s: the challenge's first_entry '%.80s' is not "
			"<bank>:<hex>",
			src->name, id);
		return ATT_E_FORMAT;
	}
	rc = agent_log_first_is(src, alg, digest, &same);
	if (!rc)
		*replaced = !same;
	return rc;
}

/* The logs the verifier asked for, read now (after the quote). */
static int logs_json(const struct agent_attest_ctx *ctx,
		     struct json_object *challenge, struct json_object *out,
		     int from_zero, struct agent_round *r)
{
	struct json_object *asked;
	size_t i, n;
	int rc = ATT_OK;

	if (!json_object_object_get_ex(challenge, "logs", &asked) ||
	    !json_object_is_type(asked, json_type_array))
		return ATT_E_FORMAT;
	n = json_object_array_length(asked);
	for (i = 0; i < n && !rc; i++) {
		struct json_object *l = json_object_array_get_idx(asked, i), *v;
		const char *name = jstr(l, "name");
		struct agent_log *src = NULL;
		struct att_buf buf;
		int64_t next;
		uint64_t count;
		size_t k;
		char *enc;
		int more, replaced = 0;

		if (!name || !json_object_object_get_ex(l, "next_entry", &v) ||
		    (next = json_object_get_int64(v)) < 0)
			return ATT_E_FORMAT;
		if (from_zero)
			next = 0;
		for (k = 0; k < ctx->nlogs; k++)
			if (!strcmp(ctx->logs[k]->name, name))
				src = ctx->logs[k];
		if (!src) {
			att_err("the verifier asks for log '%.64s', which is "
				"not configured",
				name);
			return ATT_E_NOT_FOUND;
		}
		att_buf_init(&buf, 0);
		rc = next ? same_list(src, l, &replaced) : ATT_OK;
		if (!rc && replaced) {
			att_warn("log %s: entry 0 is not the one the verifier "
				 "has replayed (a new list): sending it from "
				 "entry 0",
				 name);
			agent_log_reset(src);
			next = 0;
		}
		if (!rc)
			rc = agent_log_read(src, (uint64_t)next,
					    AGENT_LOG_ROUND_MAX, &buf, &count,
					    &more);
		if (!rc && src->shorter) {
			/* a new list in this boot: the verifier judges it
			 * whole when it starts at entry 0 */
			att_warn("log %s: has fewer entries than the %lld the "
				 "verifier has seen (a new list): sending it "
				 "from entry 0",
				 name, (long long)next);
			agent_log_reset(src);
			next = 0;
			rc = agent_log_read(src, 0, AGENT_LOG_ROUND_MAX, &buf,
					    &count, &more);
		}
		enc = rc ? NULL
			 : b64(buf.data ? buf.data : (const uint8_t *)"",
			       buf.len);
		if (!rc && !enc)
			rc = ATT_E_NOMEM;
		if (!rc) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "name",
					       json_object_new_string(name));
			json_object_object_add(e, "start",
					       json_object_new_int64(next));
			json_object_object_add(e, "entries",
					       json_object_new_string(enc));
			json_object_array_add(out, e);
			r->entries_sent += count;
			r->more |= more;
		}
		free(enc);
		att_buf_release(&buf);
	}
	return rc;
}

/*
 * The firmware log, once per boot: when the verifier asks for it, or when
 * this quote shows a boot the verifier has not seen (it asks only in the
 * challenge after). A host without one sends nothing.
 */
static int uefi_json(const struct agent_attest_ctx *ctx,
		     struct json_object *challenge, int reboot,
		     struct json_object *ev, struct agent_round *r)
{
	struct json_object *v;
	struct att_buf b;
	char *enc;
	int rc, asked;

	asked = json_object_object_get_ex(challenge, "uefi_log", &v) &&
		json_object_is_type(v, json_type_boolean) &&
		json_object_get_boolean(v);
	if (!ctx->uefi || (!asked && !reboot))
		return ATT_OK;
	att_buf_init(&b, 0);
	rc = agent_uefi_log_read(ctx->uefi, &b);
	if (rc) {
		att_buf_release(&b);
		return rc;
	}
	enc = b64(b.data ? b.data : (const uint8_t *)"", b.len);
	if (!enc) {
		att_buf_release(&b);
		return ATT_E_NOMEM;
	}
	json_object_object_add(ev, "uefi_log", json_object_new_string(enc));
	r->uefi_bytes = b.len;
	free(enc);
	att_buf_release(&b);
	return ATT_OK;
}

/* resetCount from the TPMS_ATTEST the TPM just made. */
static int quote_reset_count(const struct att_buf *attest, uint32_t *rc_out)
{
	TPMS_ATTEST a;
	int rc = att_tpm_attest_parse(attest->data, attest->len, &a);

	if (!rc)
		*rc_out = a.clockInfo.resetCount;
	return rc;
}

static void boot_path(const struct agent_attest_ctx *ctx, char *p, size_t n)
{
	snprintf(p, n, "%s/reset_count", ctx->conf->state_dir);
}

void agent_attest_load_boot(struct agent_attest_ctx *ctx)
{
	char path[600], *end;
	struct att_buf b;
	long long v;

	ctx->last_reset_count = -1;
	boot_path(ctx, path, sizeof(path));
	att_buf_init(&b, 0);
	if (!att_buf_read_file(&b, path, 32) && b.len) {
		v = strtoll((char *)b.data, &end, 10);
		if (end != (char *)b.data && v >= 0 && v <= UINT32_MAX)
			ctx->last_reset_count = v;
	}
	att_buf_release(&b);
}

void agent_attest_save_boot(const struct agent_attest_ctx *ctx)
{
	char path[600], v[24];

	if (ctx->last_reset_count < 0)
		return;
	boot_path(ctx, path, sizeof(path));
	snprintf(v, sizeof(v), "%lld\n", (long long)ctx->last_reset_count);
	if (att_write_file_atomic(path, v, strlen(v), 0600))
		att_warn("cannot save %s", path);
}

/* POST /v1/attestation/challenge. */
static int ask_challenge(struct agent_attest_ctx *ctx, struct json_object **ch)
{
	struct json_object *req = json_object_new_object();
	long status;
	int rc;

	*ch = NULL;
	if (!req)
		return ATT_E_NOMEM;
	json_object_object_add(req, "agent_id",
			       json_object_new_string(ctx->conf->agent_id));
	rc = post_json(ctx->http, "/v1/attestation/challenge", req, &status,
		       ch);
	json_object_put(req);
	if (rc)
		return rc;
	if (status != 201 && status != 200) {
		att_err("challenge refused: HTTP %ld %s", status,
			jstr(*ch, "message") ? jstr(*ch, "message") : "");
		json_object_put(*ch);
		*ch = NULL;
		return status == 401 || status == 403 ? ATT_E_AUTH : ATT_E_NET;
	}
	return ATT_OK;
}

/*
 * The challenge the last verdict carried, if it is still good for at
 * least NEXT_MARGIN seconds by this host's clock (the verifier has the
 * last word: it may still refuse it).
 */
#define NEXT_MARGIN 5
static struct json_object *held_challenge(struct agent_attest_ctx *ctx)
{
	struct json_object *ch = ctx->next_challenge, *v;

	ctx->next_challenge = NULL;
	if (ch && json_object_object_get_ex(ch, "expires", &v) &&
	    json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > (int64_t)time(NULL) + NEXT_MARGIN)
		return ch;
	json_object_put(ch);
	return NULL;
}

/*
 * Quote for challenge ch, read the logs, post the evidence. ATT_OK with
 * the evidence's status and answer, whatever they are.
 */
static int answer(struct agent_attest_ctx *ctx, struct json_object *ch,
		  struct agent_round *r, long *status, struct json_object **res)
{
	struct json_object *ev = NULL, *logs = NULL;
	struct att_buf attest, sig;
	struct att_pcr_sel sel;
	struct att_pcrs pcrs;
	uint8_t nonce[NONCE_MAX];
	const char *nhex;
	char *qa = NULL, *qs = NULL;
	size_t nlen;
	int rc;

	memset(r, 0, sizeof(*r));
	*res = NULL;
	*status = 0;
	att_buf_init(&attest, 0);
	att_buf_init(&sig, 0);
	nhex = jstr(ch, "nonce");
	if (!nhex ||
	    att_hex_decode(nhex, strlen(nhex), nonce, sizeof(nonce), &nlen) ||
	    nlen < 20 || parse_selection(ch, &sel)) {
		att_err("challenge is malformed");
		rc = ATT_E_FORMAT;
		goto out;
	}
	rc = quote(ctx->tpm, nonce, nlen, &sel, &attest, &sig, &pcrs);
	if (!rc)
		rc = quote_reset_count(&attest, &r->reset_count);
	if (rc)
		goto out;
	{
		/*
		 * The verifier's view wins: a challenge may carry the
		 * resetCount of the boot it has accepted; without it, the
		 * last one this agent saw taken.
		 */
		struct json_object *v;
		int64_t known = ctx->last_reset_count;

		if (json_object_object_get_ex(ch, "reset_count", &v) &&
		    json_object_is_type(v, json_type_int))
			known = json_object_get_int64(v);
		r->reboot = known >= 0 && (int64_t)r->reset_count != known;
	}
	if (r->reboot) {
		size_t i;

		att_info(
			"TPM resetCount %u (was %lld): a new boot, sending the "
			"lists from entry 0",
			r->reset_count, (long long)ctx->last_reset_count);
		for (i = 0; i < ctx->nlogs; i++)
			agent_log_reset(ctx->logs[i]);
	}
	ev = json_object_new_object();
	logs = json_object_new_array();
	rc = logs_json(ctx, ch, logs, r->reboot, r);
	if (rc) {
		json_object_put(logs);
		goto out;
	}
	qa = b64(attest.data, attest.len);
	qs = b64(sig.data, sig.len);
	if (!qa || !qs) {
		json_object_put(logs);
		rc = ATT_E_NOMEM;
		goto out;
	}
	json_object_object_add(ev, "agent_id",
			       json_object_new_string(ctx->conf->agent_id));
	json_object_object_add(ev, "nonce", json_object_new_string(nhex));
	json_object_object_add(ev, "quote", json_object_new_string(qa));
	json_object_object_add(ev, "signature", json_object_new_string(qs));
	json_object_object_add(ev, "pcrs", pcrs_json(&sel, &pcrs));
	json_object_object_add(ev, "logs", logs);
	json_object_object_add(ev, "next_challenge",
			       json_object_new_boolean(1));
	rc = uefi_json(ctx, ch, r->reboot, ev, r);
	if (rc)
		goto out;
	rc = post_json(ctx->http, "/v1/attestation/evidence", ev, status, res);
	r->http_status = *status;
out:
	free(qa);
	free(qs);
	att_buf_release(&attest);
	att_buf_release(&sig);
	json_object_put(ev);
	return rc;
}

/* The verifier refused the nonce itself: a fresh challenge may do. */
static int nonce_refused(long status, struct json_object *res)
{
	const char *code = jstr(res, "code");

	return status == 403 && code &&
	       (!strcmp(code, "bad_nonce") || !strcmp(code, "nonce_expired"));
}

int agent_attest_round(struct agent_attest_ctx *ctx, struct agent_round *r)
{
	struct json_object *ch, *res = NULL, *next;
	const char *state;
	long status = 0;
	int rc, held;

	memset(r, 0, sizeof(*r));
	ch = held_challenge(ctx);
	held = ch != NULL;
	rc = held ? ATT_OK : ask_challenge(ctx, &ch);
	if (!rc)
		rc = answer(ctx, ch, r, &status, &res);
	if (!rc && held && nonce_refused(status, res)) {
		att_info("the verifier refused the challenge its last verdict "
			 "gave (%s): asking for a new one",
			 jstr(res, "code"));
		json_object_put(ch);
		json_object_put(res);
		res = NULL;
		held = 0;
		rc = ask_challenge(ctx, &ch);
		if (!rc)
			rc = answer(ctx, ch, r, &status, &res);
	}
	if (rc)
		goto out;
	r->held = held;
	state = jstr(res, "state");
	snprintf(r->state, sizeof(r->state), "%s",
		 state ? state : (status == 200 ? "unknown" : "refused"));
	/* Only a boot the verifier trusted counts as known. */
	if (status == 200 && state && !strcmp(state, "trusted") &&
	    ctx->last_reset_count != (int64_t)r->reset_count) {
		ctx->last_reset_count = r->reset_count;
		agent_attest_save_boot(ctx);
	}
	/* The next round's challenge, when the verdict carries one. */
	if (status == 200 &&
	    json_object_object_get_ex(res, "next_challenge", &next) &&
	    json_object_is_type(next, json_type_object))
		ctx->next_challenge = json_object_get(next);
	if (status != 200) {
		att_err("evidence refused: HTTP %ld %s", status,
			jstr(res, "message") ? jstr(res, "message") : "");
		rc = status == 401 || status == 403 ? ATT_E_AUTH : ATT_E_NET;
	}
out:
	json_object_put(ch);
	json_object_put(res);
	return rc;
}

void agent_attest_ctx_release(struct agent_attest_ctx *ctx)
{
	json_object_put(ctx->next_challenge);
	ctx->next_challenge = NULL;
}
