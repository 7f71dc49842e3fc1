// SPDX-License-Identifier: Apache-2.0
/*
 * api_metrics.c - GET /metrics: counters plus agents by state.
 */
#include <stdio.h>
#include <string.h>

#include "akcache.h"
#include "attest/err.h"
#include "metrics.h"
#include "service.h"

struct by_state {
	unsigned long n[ATT_AGENT_STATE_COUNT];
};

static int count_agent(const struct att_agent_rec *a, void *arg)
{
	struct by_state *b = arg;

	if ((unsigned int)a->state < ATT_AGENT_STATE_COUNT)
		b->n[a->state]++;
	return 0;
}

int ver_api_metrics(struct ver_req *rq, struct ver_resp *rs)
{
	struct by_state b;
	uint64_t hits, misses;
	size_t i;
	int rc;

	memset(&b, 0, sizeof(b));
	rc = att_store_agent_list_brief(rq->ctx->store, count_agent, &b);
	if (rc)
		return ver_store_error(rs, rc, "agents");
	att_buf_release(&rs->body);
	rc = ver_metrics_format(rq->ctx->metrics, &rs->body);
	rc |= att_buf_printf(&rs->body,
			     "# HELP attest_agents Enrolled agents, by state.\n"
			     "# TYPE attest_agents gauge\n");
	for (i = ATT_AGENT_NONE + 1; i < ATT_AGENT_STATE_COUNT; i++)
		rc |= att_buf_printf(
			&rs->body, "attest_agents{state=\"%s\"} %lu\n",
			att_agent_state_name((enum att_agent_state)i), b.n[i]);
	/* A label from before states were typed: no agent is ever stored in
	 * it; kept so that the series scrapers know does not vanish. */
	rc |= att_buf_printf(&rs->body, "attest_agents{state=\"error\"} 0\n");
	if (rq->ctx->akc) {
		ver_akcache_stats(rq->ctx->akc, &hits, &misses);
		rc |= att_buf_printf(
			&rs->body,
			"# HELP attest_ak_cache_lookups_total Attestation keys "
			"found parsed (hit) or parsed again (miss).\n"
			"# TYPE attest_ak_cache_lookups_total counter\n"
			"attest_ak_cache_lookups_total{result=\"hit\"} %llu\n"
			"attest_ak_cache_lookups_total{result=\"miss\"} "
			"%llu\n",
			(unsigned long long)hits, (unsigned long long)misses);
	}
	if (rc)
		return ver_error(rs, 500, "internal", "out of memory");
	rs->status = 200;
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";
	return 0;
}
