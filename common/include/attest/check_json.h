/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_json.h - the JSON of a log check's result (check.h), one encoder
 * for the verifier's result documents (the evidence's and POST /v1/check's
 * answer) and attest-whitelist check --json.
 */
#ifndef ATTEST_CHECK_JSON_H
#define ATTEST_CHECK_JSON_H

#include <stddef.h>
#include <stdint.h>

struct att_check_result;
struct json_object;

/*
 * A path as a JSON string: printable ASCII as it is, other bytes and the
 * backslash escaped (att_escape_bytes); "?" when it cannot be made.
 */
struct json_object *att_path_json(const char *p, size_t n);

/*
 * The layers of a layered whitelist, in order: names[i] and versions[i]
 * are layer i's (the index att_check_failure.layer and
 * att_check_result.layer_counts use); n 0: not layered.
 */
struct att_check_layers {
	size_t n;
	const char *const *names;
	const int64_t *versions;
};

/* Flags of att_check_failures_json. */
enum {
	ATT_CHECK_JSON_PCR = 1u << 0,	      /* "pcr" after "index" */
	ATT_CHECK_JSON_SOME_DETAIL = 1u << 1, /* "detail" only when not "" */
};

/*
 * The array of cr's failures [{"index", ("pcr"), "path", "reason",
 * "detail", ("layer": the layer that knows the path, when layered)}], in
 * that order. layers may be NULL.
 */
struct json_object *
att_check_failures_json(const struct att_check_result *cr, unsigned int flags,
			const struct att_check_layers *layers);

/*
 * Adds to o: "entries", "verified", "unverified", ("replay_compared"
 * when with_compared), "replay_matched", "failures_total" and
 * "failures" (att_check_failures_json with no flags), in that order; then,
 * when layers->n, "layers" [{"name", "version", "allowed"}], allowed the
 * entries each layer accepted first. layers may be NULL.
 */
void att_check_result_json(struct json_object *o,
			   const struct att_check_result *cr, int with_compared,
			   const struct att_check_layers *layers);

#endif
