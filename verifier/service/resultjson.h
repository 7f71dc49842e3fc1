/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resultjson.h - the JSON of a log check's result, the same in the
 * evidence's result document (attest.c) and in POST /v1/check's answer
 * (api_check.c).
 */
#ifndef ATTEST_VERIFIER_RESULTJSON_H
#define ATTEST_VERIFIER_RESULTJSON_H

#include <stddef.h>
#include <stdint.h>

struct att_check_result;
struct json_object;

/* A path as JSON text: printable ASCII as it is, other bytes escaped. */
struct json_object *ver_path_json(const char *p, size_t n);
/*
 * The layers of a layered whitelist, in order: names[i] and versions[i]
 * are layer i's (the index att_check_failure.layer and
 * att_check_result.layer_counts use); n 0: not layered.
 */
struct ver_layers {
	size_t n;
	const char *const *names;
	const int64_t *versions;
};

/*
 * Adds to o: "entries", "verified", "unverified", ("replay_compared"
 * when with_compared), "replay_matched", "failures_total" and
 * "failures" [{"index", "path", "reason", "detail", ("layer": the layer
 * that knows the path, when layered)}], in that order; then, when
 * layers->n, "layers" [{"name", "version", "allowed"}], allowed the
 * entries each layer accepted first. layers may be NULL.
 */
void ver_check_result_json(struct json_object *o,
			   const struct att_check_result *cr, int with_compared,
			   const struct ver_layers *layers);

#endif
