// SPDX-License-Identifier: Apache-2.0
/*
 * metrics.c - request and attestation counters, latency histogram.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "attest/err.h"
#include "metrics.h"

static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				 0.5,	1,    2.5,   5,	   10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static const char *const result_names[VER_RESULT_COUNT] = {
	"trusted", "untrusted", "error"};

struct ver_metrics {
	pthread_mutex_t lock;
	uint64_t requests[6]; /* by status class 1xx..5xx; [0] other */
	uint64_t results[VER_RESULT_COUNT];
	uint64_t hist[NBUCKETS];
	uint64_t hist_count;
	double hist_sum;
};

int ver_metrics_new(struct ver_metrics **out)
{
	struct ver_metrics *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return ATT_E_NOMEM;
	pthread_mutex_init(&m->lock, NULL);
	return 0;
}

void ver_metrics_free(struct ver_metrics *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void ver_metrics_request(struct ver_metrics *m, unsigned int status)
{
	unsigned int c = status / 100;

	pthread_mutex_lock(&m->lock);
	m->requests[c >= 1 && c <= 5 ? c : 0]++;
	pthread_mutex_unlock(&m->lock);
}

void ver_metrics_attestation(struct ver_metrics *m, enum ver_result r,
			     double seconds)
{
	size_t i;

	pthread_mutex_lock(&m->lock);
	if ((unsigned int)r < VER_RESULT_COUNT)
		m->results[r]++;
	for (i = 0; i < NBUCKETS; i++)
		if (seconds <= buckets[i])
			m->hist[i]++;
	m->hist_count++;
	m->hist_sum += seconds;
	pthread_mutex_unlock(&m->lock);
}

int ver_metrics_format(struct ver_metrics *m, struct att_buf *o)
{
	static const char *const cls[6] = {"other", "1xx", "2xx",
					   "3xx",   "4xx", "5xx"};
	int rc = 0;
	size_t i;

	pthread_mutex_lock(&m->lock);
	rc |= att_buf_printf(o, "# HELP attest_http_requests_total HTTP "
				"requests answered, by status class.\n"
				"# TYPE attest_http_requests_total counter\n");
	for (i = 0; i < 6; i++)
		rc |= att_buf_printf(o,
				     "attest_http_requests_total{code=\"%s\"} "
				     "%llu\n",
				     cls[i],
				     (unsigned long long)m->requests[i]);
	rc |= att_buf_printf(o, "# HELP attest_attestations_total "
				"Attestations verified, by result.\n"
				"# TYPE attest_attestations_total counter\n");
	for (i = 0; i < VER_RESULT_COUNT; i++)
		rc |= att_buf_printf(o,
				     "attest_attestations_total{result=\"%s\"} "
				     "%llu\n",
				     result_names[i],
				     (unsigned long long)m->results[i]);
	rc |= att_buf_printf(
		o, "# HELP attest_attestation_duration_seconds Time to verify "
		   "one piece of evidence.\n"
		   "# TYPE attest_attestation_duration_seconds histogram\n");
	for (i = 0; i < NBUCKETS; i++)
		rc |= att_buf_printf(o,
				     "attest_attestation_duration_seconds_"
				     "bucket{le=\"%g\"} %llu\n",
				     buckets[i],
				     (unsigned long long)m->hist[i]);
	rc |= att_buf_printf(o,
			     "attest_attestation_duration_seconds_bucket{le="
			     "\"+Inf\"} %llu\n"
			     "attest_attestation_duration_seconds_sum %.6f\n"
			     "attest_attestation_duration_seconds_count %llu\n",
			     (unsigned long long)m->hist_count, m->hist_sum,
			     (unsigned long long)m->hist_count);
	pthread_mutex_unlock(&m->lock);
	return rc ? ATT_E_NOMEM : 0;
}
