/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resultjson.h - the JSON of a log check's result, the same in the
 * evidence's result document (attest.c) and in POST /v1/check's answer
 * (api_check.c).
 */
#ifndef ATTEST_VERIFIER_RESULTJSON_H
#define ATTEST_VERIFIER_RESULTJSON_H

#include <stddef.h>

struct att_check_result;
struct json_object;

/* A path as JSON text: printable ASCII as it is, other bytes escaped. */
struct json_object *ver_path_json(const char *p, size_t n);
/*
 * Adds to o: "entries", "verified", "unverified", ("replay_compared"
 * when with_compared), "replay_matched", "failures_total" and
 * "failures" [{"index", "path", "reason", "detail"}], in that order.
 */
void ver_check_result_json(struct json_object *o,
			   const struct att_check_result *cr,
			   int with_compared);

#endif
