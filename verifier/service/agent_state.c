// SPDX-License-Identifier: Apache-2.0
/*
 * agent_state.c - the names of the agent states (store.h): the one table
 * the database, the API, the webhook and /metrics read them from.
 */
#include <string.h>

#include "attest/err.h"
#include "store.h"

static const char *const state_names[ATT_AGENT_STATE_COUNT] = {
	[ATT_AGENT_NONE] = "",
	[ATT_AGENT_ENROLLING] = "enrolling",
	[ATT_AGENT_REGISTERED] = "registered",
	[ATT_AGENT_TRUSTED] = "trusted",
	[ATT_AGENT_UNTRUSTED] = "untrusted",
	[ATT_AGENT_STALE] = "stale",
};

const char *att_agent_state_name(enum att_agent_state s)
{
	return (unsigned int)s < ATT_AGENT_STATE_COUNT ? state_names[s] : "";
}

int att_agent_state_parse(const char *s, enum att_agent_state *out)
{
	unsigned int i;

	for (i = 0; i < ATT_AGENT_STATE_COUNT; i++)
		if (!strcmp(s, state_names[i])) {
			*out = (enum att_agent_state)i;
			return 0;
		}
	return ATT_E_FORMAT;
}
