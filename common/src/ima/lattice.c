// SPDX-License-Identifier: Apache-2.0
/*
 * lattice.c - a host's lattice state, folded from slim.ko's event records
 * in list order, and the whitelist's lattice policy applied to each record
 * and to the state at the end of a trusted prefix.
 */
#include "attest/lattice.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "attest/codec.h"
#include "attest/digest.h"
#include "attest/err.h"

void att_lat_state_init(struct att_lat_state *st)
{
	memset(st, 0, sizeof(*st));
}

/* a record's string as C text: cut to fit, control bytes as '?' */
static void text(char *dst, size_t size, const struct att_sev_str *s)
{
	size_t i, n = s->len < size - 1 ? s->len : size - 1;

	for (i = 0; i < n; i++)
		dst[i] = (s->p[i] < 0x20 || s->p[i] == 0x7f) ? '?'
							     : (char)s->p[i];
	dst[n] = '\0';
}

/* "*" at the end: a prefix; otherwise the whole string */
static int glob_match(const char *pat, const char *s)
{
	size_t n;

	if (!pat)
		return 1;
	n = strlen(pat);
	if (n && pat[n - 1] == '*')
		return !strncmp(pat, s, n - 1);
	return !strcmp(pat, s);
}

static int acceptable(const struct att_lat_policy *pol,
		      const struct att_lat_demotion *d)
{
	size_t i;

	for (i = 0; i < pol->nacceptable; i++) {
		const struct att_lat_match *m = &pol->acceptable[i];

		if (glob_match(m->exe, d->exe) &&
		    glob_match(m->comm, d->comm) &&
		    (!m->path || (d->cause == ATT_SEV_CAUSE_FILE &&
				  glob_match(m->path, d->path))) &&
		    (!m->cause || m->cause == d->cause))
			return 1;
	}
	return 0;
}

static void demotion_text(const struct att_lat_demotion *d, char *why, size_t n)
{
	const struct att_sev_cause_info *c = att_sev_cause(d->cause);

	snprintf(why, n,
		 "SYSTEM task demoted: pid %u comm %s exe %s (%s after %s%s%s)",
		 d->pid, d->comm, d->exe, d->new_label,
		 c ? c->reason : "an unknown cause",
		 d->cause == ATT_SEV_CAUSE_FILE ? " " : "",
		 d->cause == ATT_SEV_CAUSE_FILE ? d->path : "");
}

static int fold_demotion(struct att_lat_state *st,
			 const struct att_lat_policy *pol,
			 const struct att_slim_event *ev, char *why, size_t n)
{
	struct att_lat_demotion d;

	memset(&d, 0, sizeof(d));
	d.time = ev->time;
	d.pid = ev->pid;
	d.cause = ev->cause;
	text(d.comm, sizeof(d.comm), &ev->comm);
	text(d.exe, sizeof(d.exe), &ev->exe);
	text(d.path, sizeof(d.path), &ev->path);
	text(d.old_label, sizeof(d.old_label), &ev->old_label);
	text(d.new_label, sizeof(d.new_label), &ev->new_label);
	st->demotions++;
	if (st->nrecent == ATT_LAT_RECENT) {
		memmove(&st->recent[0], &st->recent[1],
			(ATT_LAT_RECENT - 1) * sizeof(st->recent[0]));
		st->nrecent--;
	}
	st->recent[st->nrecent++] = d;
	if (pol && pol->demotions == ATT_LAT_DEMOTIONS_DENY &&
	    !acceptable(pol, &d)) {
		demotion_text(&d, why, n);
		return ATT_LAT_REFUSED;
	}
	return ATT_LAT_OK;
}

static int digest_allowed(const struct att_lat_policy *pol, const uint8_t *d)
{
	size_t i;

	for (i = 0; i < pol->ndigests; i++)
		if (!CRYPTO_memcmp(pol->digests[i], d, ATT_SEV_DIGEST_LEN))
			return 1;
	return 0;
}

static int fold(struct att_lat_state *st, const struct att_lat_policy *pol,
		const struct att_slim_event *ev, char *why, size_t n)
{
	char comm[17], a[48], b[48], path[ATT_LAT_TEXT + 1];
	char hex[2 * ATT_SEV_DIGEST_LEN + 1];

	switch (ev->type) {
	case ATT_SEV_LOAD:
		st->loaded = 1;
		st->mode = ev->mode;
		text(st->version, sizeof(st->version), &ev->version);
		return ATT_LAT_OK;
	case ATT_SEV_MODE:
		st->mode = ev->mode;
		if (pol && pol->mode >= 0 && ev->old_mode == pol->mode &&
		    ev->mode != pol->mode) {
			text(comm, sizeof(comm), &ev->comm);
			snprintf(why, n,
				 "lattice mode changed from %s to %s by pid %u "
				 "(%s)",
				 att_sev_mode_name(ev->old_mode),
				 att_sev_mode_name(ev->mode), ev->pid, comm);
			return ATT_LAT_REFUSED;
		}
		return ATT_LAT_OK;
	case ATT_SEV_POLICY:
		st->have_policy = 1;
		memcpy(st->policy_digest, ev->digest, ATT_SEV_DIGEST_LEN);
		if (pol && pol->check_digests &&
		    !digest_allowed(pol, ev->digest)) {
			att_hex_encode(ev->digest, ATT_SEV_DIGEST_LEN, hex);
			snprintf(why, n, "slim.ko policy %s is not allowed",
				 hex);
			return ATT_LAT_REFUSED;
		}
		return ATT_LAT_OK;
	case ATT_SEV_EVM_KEY:
		st->evm_key = 1;
		return ATT_LAT_OK;
	case ATT_SEV_RELABEL:
		st->relabels++;
		if (pol && !pol->relabels) {
			text(comm, sizeof(comm), &ev->comm);
			text(path, sizeof(path), &ev->path);
			text(a, sizeof(a), &ev->old_label);
			text(b, sizeof(b), &ev->new_label);
			snprintf(
				why, n,
				"relabel of %s from %s to %s by pid %u (%s) is "
				"not allowed",
				path, a, b, ev->pid, comm);
			return ATT_LAT_REFUSED;
		}
		return ATT_LAT_OK;
	case ATT_SEV_DEMOTION:
		return fold_demotion(st, pol, ev, why, n);
	case ATT_SEV_REFUSED:
		/* a task tried to change the system from below SYSTEM */
		if (pol && !pol->refusals) {
			text(comm, sizeof(comm), &ev->comm);
			text(path, sizeof(path), &ev->exe);
			text(a, sizeof(a), &ev->label);
			snprintf(why, n,
				 "attempted escape from the lattice: pid %u "
				 "(%s, %s, %s) tried to %.*s%s%.*s (%s)",
				 ev->pid, comm, path, a, (int)ev->action.len,
				 (const char *)ev->action.p,
				 ev->path.len ? " " : "", (int)ev->path.len,
				 ev->path.len ? (const char *)ev->path.p : "",
				 ev->mode == ATT_SEV_MODE_ENFORCE
					 ? "refused"
					 : "not refused: permissive");
			return ATT_LAT_REFUSED;
		}
		return ATT_LAT_OK;
	default: /* ATT_SEV_DROPPED: the parser knows no other type */
		st->dropped += ev->count;
		st->capped |= ev->final;
		if (pol && !pol->dropped_allowed) {
			snprintf(why, n,
				 "slim.ko dropped %llu lattice events (%s): a "
				 "demotion may be among them",
				 (unsigned long long)ev->count,
				 ev->final ? "its cap was reached"
					   : "rate limit");
			return ATT_LAT_REFUSED;
		}
		return ATT_LAT_OK;
	}
}

int att_lat_step(struct att_lat_state *st, const struct att_lat_policy *pol,
		 const struct att_ima_entry *e, char *why, size_t whylen)
{
	struct att_slim_event ev;
	uint8_t d[ATT_SEV_DIGEST_LEN];
	char perr[120];
	int rc;

	why[0] = '\0';
	if (e->file_alg != ATT_HASH_SHA256 || !e->file_digest ||
	    e->file_digest_len != ATT_SEV_DIGEST_LEN || !e->buf) {
		snprintf(why, whylen,
			 "malformed lattice event: no sha256 digest or buffer");
		return ATT_LAT_MALFORMED;
	}
	rc = att_digest(ATT_HASH_SHA256, e->buf, e->buf_len, d);
	if (rc)
		return rc;
	if (CRYPTO_memcmp(d, e->file_digest, sizeof(d))) {
		snprintf(why, whylen,
			 "malformed lattice event: its digest is not the "
			 "record's SHA-256");
		return ATT_LAT_MALFORMED;
	}
	if (att_slim_event_parse(e->buf, e->buf_len, &ev, perr, sizeof(perr))) {
		snprintf(why, whylen, "malformed lattice event: %s", perr);
		return ATT_LAT_MALFORMED;
	}
	if (ev.type == ATT_SEV_LOAD ? ev.seq != 0
				    : (!st->loaded || ev.seq != st->next_seq)) {
		snprintf(why, whylen,
			 "malformed lattice event: %s record with seq %llu, "
			 "expected %llu",
			 att_sev_type_name(ev.type), (unsigned long long)ev.seq,
			 (unsigned long long)(ev.type == ATT_SEV_LOAD
						      ? 0
						      : st->next_seq));
		return ATT_LAT_MALFORMED;
	}
	st->next_seq = ev.seq + 1;
	return fold(st, pol, &ev, why, whylen);
}

int att_lat_final(const struct att_lat_state *st,
		  const struct att_lat_policy *pol, char *why, size_t whylen)
{
	why[0] = '\0';
	if (!pol || !st->loaded)
		return 0;
	if (pol->mode >= 0 && st->mode != pol->mode) {
		snprintf(why, whylen,
			 "lattice mode is %s, the whitelist requires %s",
			 att_sev_mode_name(st->mode),
			 att_sev_mode_name((unsigned int)pol->mode));
		return 1;
	}
	if (pol->evm_key && !st->evm_key) {
		snprintf(why, whylen,
			 "the EVM key was not loaded (the whitelist requires "
			 "it)");
		return 1;
	}
	return 0;
}

/* ---- storage ------------------------------------------------------------ */

#define STATE_VERSION 1

static int put_u64(struct att_buf *b, uint64_t v)
{
	return att_buf_append_u32be(b, (uint32_t)(v >> 32)) |
	       att_buf_append_u32be(b, (uint32_t)v);
}

static int put_str(struct att_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n > 255)
		return ATT_E_INTERNAL;
	return att_buf_append_u8(b, (uint8_t)n) | att_buf_append(b, s, n);
}

int att_lat_state_encode(const struct att_lat_state *st, struct att_buf *b)
{
	unsigned int i;
	int rc = 0;

	rc |= att_buf_append_u8(b, STATE_VERSION);
	rc |= att_buf_append_u8(
		b, (uint8_t)((st->loaded ? 1 : 0) | (st->have_policy ? 2 : 0) |
			     (st->evm_key ? 4 : 0) | (st->capped ? 8 : 0) |
			     (st->gap ? 16 : 0)));
	rc |= att_buf_append_u8(b, st->mode);
	rc |= put_u64(b, st->next_seq);
	rc |= put_str(b, st->version);
	rc |= att_buf_append(b, st->policy_digest, ATT_SEV_DIGEST_LEN);
	rc |= put_u64(b, st->relabels);
	rc |= put_u64(b, st->demotions);
	rc |= put_u64(b, st->dropped);
	rc |= att_buf_append_u8(b, (uint8_t)st->nrecent);
	for (i = 0; i < st->nrecent; i++) {
		const struct att_lat_demotion *d = &st->recent[i];

		rc |= put_u64(b, d->time);
		rc |= att_buf_append_u32be(b, d->pid);
		rc |= att_buf_append_u8(b, d->cause);
		rc |= put_str(b, d->comm);
		rc |= put_str(b, d->exe);
		rc |= put_str(b, d->path);
		rc |= put_str(b, d->old_label);
		rc |= put_str(b, d->new_label);
	}
	return rc ? ATT_E_NOMEM : ATT_OK;
}

static int get_u64(struct att_rd *r, uint64_t *v)
{
	uint32_t hi, lo;

	if (att_rd_u32be(r, &hi) || att_rd_u32be(r, &lo))
		return ATT_E_FORMAT;
	*v = (uint64_t)hi << 32 | lo;
	return ATT_OK;
}

static int get_str(struct att_rd *r, char *dst, size_t size)
{
	const uint8_t *p;
	uint8_t n;

	if (att_rd_u8(r, &n) || n >= size || att_rd_bytes(r, n, &p) ||
	    memchr(p, '\0', n))
		return ATT_E_FORMAT;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return ATT_OK;
}

int att_lat_state_decode(struct att_rd *r, struct att_lat_state *st)
{
	uint8_t ver, flags, n;
	unsigned int i;

	att_lat_state_init(st);
	if (att_rd_u8(r, &ver) || ver != STATE_VERSION ||
	    att_rd_u8(r, &flags) || flags > 31 || att_rd_u8(r, &st->mode) ||
	    st->mode > ATT_SEV_MODE_ENFORCE || get_u64(r, &st->next_seq) ||
	    get_str(r, st->version, sizeof(st->version)) ||
	    att_rd_copy(r, st->policy_digest, ATT_SEV_DIGEST_LEN) ||
	    get_u64(r, &st->relabels) || get_u64(r, &st->demotions) ||
	    get_u64(r, &st->dropped) || att_rd_u8(r, &n) || n > ATT_LAT_RECENT)
		return ATT_E_FORMAT;
	st->loaded = !!(flags & 1);
	st->have_policy = !!(flags & 2);
	st->evm_key = !!(flags & 4);
	st->capped = !!(flags & 8);
	st->gap = !!(flags & 16);
	for (i = 0; i < n; i++) {
		struct att_lat_demotion *d = &st->recent[i];

		if (get_u64(r, &d->time) || att_rd_u32be(r, &d->pid) ||
		    att_rd_u8(r, &d->cause) || !att_sev_cause(d->cause) ||
		    get_str(r, d->comm, sizeof(d->comm)) ||
		    get_str(r, d->exe, sizeof(d->exe)) ||
		    get_str(r, d->path, sizeof(d->path)) ||
		    get_str(r, d->old_label, sizeof(d->old_label)) ||
		    get_str(r, d->new_label, sizeof(d->new_label)))
			return ATT_E_FORMAT;
	}
	st->nrecent = n;
	return ATT_OK;
}
