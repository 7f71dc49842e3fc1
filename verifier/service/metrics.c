// SPDX-License-Identifier: Apache-2.0
/*
 * metrics.c - request, challenge and attestation counters, latency
 * histogram. Counters are atomics (every worker thread bumps them on
 * every request; a mutex here was a contended lock at load); a scrape
 * reads each counter once, so it may see one attestation in the count
 * and not yet in the sum, as Prometheus clients allow.
 * Untrusted verdicts are also counted by the classes of their reasons:
 * each reason's kind (verdict.h), and a failing entry's verdict.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "attest/err.h"
#include "attest/whitelist.h"
#include "metrics.h"
#include "verdict.h"

static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				 0.5,	1,    2.5,   5,	   10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static const char *const result_names[VER_RESULT_COUNT] = {
	"trusted", "untrusted", "error"};

static const char *const challenge_names[VER_CHALLENGE_COUNT] = {"request",
								 "verdict"};

/* the classes counted besides the entries' verdicts, in their order */
#define KIND_FIRST VER_REASON_QUOTE
#define KIND_LAST  VER_REASON_OTHER
#define NKINDS	   (KIND_LAST - KIND_FIRST + 1)

struct ver_metrics {
	atomic_ullong requests[6]; /* by status class 1xx..5xx; [0] other */
	atomic_ullong results[VER_RESULT_COUNT];
	atomic_ullong challenges[VER_CHALLENGE_COUNT];
	atomic_ullong hist[NBUCKETS];
	atomic_ullong hist_count;
	atomic_ullong hist_sum_ns;
	atomic_ullong verdict_reasons[ATT_V_COUNT];
	atomic_ullong kind_reasons[NKINDS];
};

int ver_metrics_new(struct ver_metrics **out)
{
	struct ver_metrics *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return ATT_E_NOMEM;
	return 0;
}

void ver_metrics_free(struct ver_metrics *m)
{
	free(m);
}

void ver_metrics_request(struct ver_metrics *m, unsigned int status)
{
	unsigned int c = status / 100;

	atomic_fetch_add_explicit(&m->requests[c >= 1 && c <= 5 ? c : 0], 1,
				  memory_order_relaxed);
}

void ver_metrics_challenge(struct ver_metrics *m, enum ver_challenge_via via)
{
	if ((unsigned int)via < VER_CHALLENGE_COUNT)
		atomic_fetch_add_explicit(&m->challenges[via], 1,
					  memory_order_relaxed);
}

void ver_metrics_attestation(struct ver_metrics *m, enum ver_result r,
			     double seconds)
{
	size_t i;

	if ((unsigned int)r < VER_RESULT_COUNT)
		atomic_fetch_add_explicit(&m->results[r], 1,
					  memory_order_relaxed);
	for (i = 0; i < NBUCKETS; i++)
		if (seconds <= buckets[i])
			atomic_fetch_add_explicit(&m->hist[i], 1,
						  memory_order_relaxed);
	atomic_fetch_add_explicit(&m->hist_count, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(
		&m->hist_sum_ns,
		seconds > 0 ? (unsigned long long)(seconds * 1e9) : 0,
		memory_order_relaxed);
}

void ver_metrics_verdict(struct ver_metrics *m, const struct ver_verdict *v)
{
	unsigned char seen_v[ATT_V_COUNT] = {0}, seen_k[NKINDS] = {0};
	const struct ver_reason *r;
	size_t i;

	for (i = 0; i < v->nreasons; i++) {
		r = &v->reasons[i];
		if (r->kind == VER_REASON_ENTRY) {
			if ((unsigned int)r->entry < ATT_V_COUNT &&
			    !att_verdict_ok(r->entry))
				seen_v[r->entry] = 1;
			else
				seen_k[VER_REASON_OTHER - KIND_FIRST] = 1;
		} else if (r->kind >= KIND_FIRST && r->kind <= KIND_LAST) {
			seen_k[r->kind - KIND_FIRST] = 1;
		}
	}
	for (i = 0; i < ATT_V_COUNT; i++)
		if (seen_v[i])
			atomic_fetch_add_explicit(&m->verdict_reasons[i], 1,
						  memory_order_relaxed);
	for (i = 0; i < NKINDS; i++)
		if (seen_k[i])
			atomic_fetch_add_explicit(&m->kind_reasons[i], 1,
						  memory_order_relaxed);
}

int ver_metrics_format(struct ver_metrics *m, struct att_buf *o)
{
	static const char *const cls[6] = {"other", "1xx", "2xx",
					   "3xx",   "4xx", "5xx"};
	int rc = 0;
	size_t i;

	rc |= att_buf_printf(o, "# HELP attest_http_requests_total HTTP "
				"requests answered, by status class.\n"
				"# TYPE attest_http_requests_total counter\n");
	for (i = 0; i < 6; i++)
		rc |= att_buf_printf(o,
				     "attest_http_requests_total{code=\"%s\"} "
				     "%llu\n",
				     cls[i], atomic_load(&m->requests[i]));
	rc |= att_buf_printf(o, "# HELP attest_attestations_total "
				"Attestations verified, by result.\n"
				"# TYPE attest_attestations_total counter\n");
	for (i = 0; i < VER_RESULT_COUNT; i++)
		rc |= att_buf_printf(o,
				     "attest_attestations_total{result=\"%s\"} "
				     "%llu\n",
				     result_names[i],
				     atomic_load(&m->results[i]));
	rc |= att_buf_printf(o, "# HELP attest_challenges_total Nonces issued, "
				"by how: a challenge request or with a "
				"verdict.\n"
				"# TYPE attest_challenges_total counter\n");
	for (i = 0; i < VER_CHALLENGE_COUNT; i++)
		rc |= att_buf_printf(o,
				     "attest_challenges_total{via=\"%s\"} "
				     "%llu\n",
				     challenge_names[i],
				     atomic_load(&m->challenges[i]));
	rc |= att_buf_printf(
		o, "# HELP attest_untrusted_reasons_total Untrusted verdicts "
		   "by the classes of their reasons (one verdict counts once "
		   "in each class it shows).\n"
		   "# TYPE attest_untrusted_reasons_total counter\n");
	for (i = ATT_V_FIRST_FAILURE; i < ATT_V_COUNT; i++)
		if (!att_verdict_ok((enum att_verdict)i))
			rc |= att_buf_printf(
				o,
				"attest_untrusted_reasons_total{reason=\"%s\"} "
				"%llu\n",
				att_verdict_name((enum att_verdict)i),
				atomic_load(&m->verdict_reasons[i]));
	for (i = 0; i < NKINDS; i++)
		rc |= att_buf_printf(
			o,
			"attest_untrusted_reasons_total{reason=\"%s\"} %llu\n",
			ver_reason_kind_name(
				(enum ver_reason_kind)(KIND_FIRST + i)),
			atomic_load(&m->kind_reasons[i]));
	rc |= att_buf_printf(
		o, "# HELP attest_attestation_duration_seconds Time to verify "
		   "one piece of evidence.\n"
		   "# TYPE attest_attestation_duration_seconds histogram\n");
	for (i = 0; i < NBUCKETS; i++)
		rc |= att_buf_printf(o,
				     "attest_attestation_duration_seconds_"
				     "bucket{le=\"%g\"} %llu\n",
				     buckets[i], atomic_load(&m->hist[i]));
	rc |= att_buf_printf(o,
			     "attest_attestation_duration_seconds_bucket{le="
			     "\"+Inf\"} %llu\n"
			     "attest_attestation_duration_seconds_sum %.6f\n"
			     "attest_attestation_duration_seconds_count %llu\n",
			     atomic_load(&m->hist_count),
			     (double)atomic_load(&m->hist_sum_ns) / 1e9,
			     atomic_load(&m->hist_count));
	return rc ? ATT_E_NOMEM : 0;
}
