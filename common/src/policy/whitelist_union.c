// SPDX-License-Identifier: Apache-2.0
/*
 * whitelist_union.c - a whitelist made of layers (whitelist.h,
 * att_wl_union_new): each layer judges the entry, the first that accepts
 * it is named.
 */
#include <stdio.h>
#include <string.h>

#include "attest/err.h"
#include "wl_internal.h"

int att_wl_union_new(const struct att_wl *const *layers, size_t n,
		     struct att_wl **out, char *err, size_t errlen)
{
	struct att_wl *wl;
	int lat = -1, boot = -1, rc;
	size_t i;

	*out = NULL;
	if (n == 0 || n > ATT_WL_LAYERS_MAX) {
		snprintf(err, errlen, "a layered whitelist has 1 to %d layers",
			 ATT_WL_LAYERS_MAX);
		return ATT_E_INVAL;
	}
	for (i = 0; i < n; i++) {
		if (!layers[i] || layers[i]->nlayers) {
			snprintf(err, errlen, "layer %zu: %s", i,
				 layers[i] ? "a layer may not have layers"
					   : "missing");
			return ATT_E_INVAL;
		}
		if (layers[i]->lattice) {
			if (lat >= 0) {
				snprintf(err, errlen,
					 "layers %d and %zu both have a "
					 "lattice section (one may)",
					 lat, i);
				return ATT_E_INVAL;
			}
			lat = (int)i;
		}
		if (layers[i]->boot) {
			if (boot >= 0) {
				snprintf(err, errlen,
					 "layers %d and %zu both have a boot "
					 "section (one may)",
					 boot, i);
				return ATT_E_INVAL;
			}
			boot = (int)i;
		}
	}
	rc = wl_new(NULL, &wl);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		wl->layers[i] = layers[i];
	wl->nlayers = n;
	*out = wl;
	return ATT_OK;
}

size_t att_wl_layer_count(const struct att_wl *wl)
{
	return wl->nlayers;
}

/*
 * The best of the layers' judgements: an acceptance by digest, exclude,
 * signature or policy from the first layer giving one (UNCHECKED, nothing
 * to judge by, names no layer and only when no layer accepts); otherwise a hash
 * mismatch from the first layer that knows the path, so that the failure says
 * the file changed rather than that it is unknown; otherwise the first layer's
 * failure.
 */
enum att_verdict wl_union_judge(const struct att_wl *wl,
				const struct att_ima_entry *e,
				struct att_judgement *j)
{
	struct att_judgement one;
	enum att_verdict v, best = ATT_V_COUNT;
	int best_layer = -1, unchecked = 0;
	size_t i;

	for (i = 0; i < wl->nlayers; i++) {
		one.detail[0] = '\0';
		v = wl_judge_one(wl->layers[i], e, &one);
		if (att_verdict_ok(v) && v != ATT_V_UNCHECKED) {
			j->layer = (int)i;
			memcpy(j->detail, one.detail, sizeof(j->detail));
			return v;
		}
		if (v == ATT_V_UNCHECKED) {
			unchecked = 1;
			continue;
		}
		if (best == ATT_V_COUNT ||
		    (v == ATT_V_HASH_MISMATCH && best != ATT_V_HASH_MISMATCH)) {
			best = v;
			best_layer = (int)i;
			memcpy(j->detail, one.detail, sizeof(j->detail));
		}
	}
	if (unchecked) {
		/* nothing judged it: no layer accepted it */
		j->layer = -1;
		j->detail[0] = '\0';
		return ATT_V_UNCHECKED;
	}
	j->layer = best == ATT_V_HASH_MISMATCH ? best_layer : -1;
	return best;
}
