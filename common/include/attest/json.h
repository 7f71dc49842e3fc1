/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.h - strict JSON parsing over json-c for untrusted documents.
 *
 * On top of json-c's strict mode: UTF-8 validated, nesting capped, nothing
 * but white space after the value, and duplicate keys rejected by name
 * (json-c keeps the last one silently).
 */
#ifndef ATTEST_JSON_H
#define ATTEST_JSON_H

#include <stddef.h>

struct json_object;

int att_json_parse(const char *text, size_t len, int max_depth,
		   struct json_object **out, char *err, size_t errlen);

#endif
