// SPDX-License-Identifier: Apache-2.0
/*
 * metrics.c - request, challenge and attestation counters, latency
 * histogram. Counters are atomics (every worker thread bumps them on
 * every request; a mutex here was a contended lock at load); a scrape
 * reads each counter once, so it may see one attestation in the count
 * and not yet in the sum, as Prometheus clients allow.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "attest/err.h"
#include "metrics.h"

static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				 0.5,	1,    2.5,   5,	   10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static const char *const result_names[VER_RESULT_COUNT] = {
	"trusted", "untrusted", "error"};

static const char *const challenge_names[VER_CHALLENGE_COUNT] = {"request",
								 "verdict"};

struct ver_metrics {
	atomic_ullong requests[6]; /* by status class 1xx..5xx; [0] other */
	atomic_ullong results[VER_RESULT_COUNT];
	atomic_ullong challenges[VER_CHALLENGE_COUNT];
	atomic_ullong hist[NBUCKETS];
	atomic_ullong hist_count;
	atomic_ullong hist_sum_ns;
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
