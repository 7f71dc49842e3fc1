// SPDX-License-Identifier: Apache-2.0
/*
 * metrics.c - request, challenge and attestation counters, latency
 * histogram. Counters are atomics (every worker thread bumps them on
 * every request; a mutex here was a contended lock at load); a scrape
 * reads each counter once, so it may see one attestation in the count
 * and not yet in the sum, as Prometheus clients allow.
 * Untrusted verdicts are also counted by the classes of their reasons,
 * read from the reasons' fixed prefixes (attest.c writes them).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "attest/err.h"
#include "attest/whitelist.h"
#include "metrics.h"

static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				 0.5,	1,    2.5,   5,	   10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static const char *const result_names[VER_RESULT_COUNT] = {
	"trusted", "untrusted", "error"};

static const char *const challenge_names[VER_CHALLENGE_COUNT] = {"request",
								 "verdict"};

/* reason classes besides the entry verdicts: by the reason's prefix */
enum ver_reason {
	VER_REASON_QUOTE,
	VER_REASON_CLONE,
	VER_REASON_BOOT,
	VER_REASON_UEFI,
	VER_REASON_LATTICE,
	VER_REASON_STATIC_PCR,
	VER_REASON_LOG,
	VER_REASON_NO_WHITELIST,
	VER_REASON_OTHER,
	VER_REASON_COUNT
};

static const struct {
	const char *prefix, *name;
} reason_kinds[VER_REASON_COUNT] = {
	[VER_REASON_QUOTE] = {"quote: ", "quote"},
	[VER_REASON_CLONE] = {"possible cloned TPM: ", "cloned-tpm"},
	[VER_REASON_BOOT] = {"boot: ", "boot"},
	[VER_REASON_UEFI] = {"uefi log: ", "uefi-log"},
	[VER_REASON_LATTICE] = {"lattice: ", "lattice"},
	[VER_REASON_STATIC_PCR] = {"static PCR ", "static-pcr"},
	[VER_REASON_LOG] = {"log ", "log"},
	[VER_REASON_NO_WHITELIST] = {"no whitelist ", "no-whitelist"},
	[VER_REASON_OTHER] = {"", "other"},
};

struct ver_metrics {
	atomic_ullong requests[6]; /* by status class 1xx..5xx; [0] other */
	atomic_ullong results[VER_RESULT_COUNT];
	atomic_ullong challenges[VER_CHALLENGE_COUNT];
	atomic_ullong hist[NBUCKETS];
	atomic_ullong hist_count;
	atomic_ullong hist_sum_ns;
	atomic_ullong verdict_reasons[ATT_V_COUNT];
	atomic_ullong kind_reasons[VER_REASON_COUNT];
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

/* "<verdict>: ..." of a failing entry: its verdict, else ATT_V_COUNT */
static unsigned int reason_verdict(const char *s)
{
	unsigned int v;
	size_t n;

	for (v = ATT_V_FIRST_FAILURE; v < ATT_V_COUNT; v++) {
		const char *name = att_verdict_name((enum att_verdict)v);

		n = strlen(name);
		if (!att_verdict_ok((enum att_verdict)v) &&
		    !strncmp(s, name, n) && s[n] == ':')
			return v;
	}
	return ATT_V_COUNT;
}

void ver_metrics_reasons(struct ver_metrics *m,
			 const struct json_object *reasons)
{
	unsigned char seen_v[ATT_V_COUNT] = {0}, seen_k[VER_REASON_COUNT] = {0};
	size_t i, n, k;

	if (!json_object_is_type(reasons, json_type_array))
		return;
	n = json_object_array_length(reasons);
	for (i = 0; i < n; i++) {
		const char *s = json_object_get_string(
			json_object_array_get_idx(reasons, i));
		unsigned int v;

		/* "... N failing entries in all": more of the one before */
		if (!s || !strncmp(s, "... ", 4))
			continue;
		v = reason_verdict(s);
		if (v < ATT_V_COUNT) {
			seen_v[v] = 1;
			continue;
		}
		for (k = 0; k < VER_REASON_OTHER; k++)
			if (!strncmp(s, reason_kinds[k].prefix,
				     strlen(reason_kinds[k].prefix)))
				break;
		seen_k[k] = 1;
	}
	for (i = 0; i < ATT_V_COUNT; i++)
		if (seen_v[i])
			atomic_fetch_add_explicit(&m->verdict_reasons[i], 1,
						  memory_order_relaxed);
	for (k = 0; k < VER_REASON_COUNT; k++)
		if (seen_k[k])
			atomic_fetch_add_explicit(&m->kind_reasons[k], 1,
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
	for (i = 0; i < VER_REASON_COUNT; i++)
		rc |= att_buf_printf(
			o,
			"attest_untrusted_reasons_total{reason=\"%s\"} %llu\n",
			reason_kinds[i].name, atomic_load(&m->kind_reasons[i]));
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
