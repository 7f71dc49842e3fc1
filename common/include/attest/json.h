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

/*
 * Replaces, in place, every byte of s that does not start a valid UTF-8
 * sequence with '?': text that quotes untrusted bytes (paths, request
 * fields), or was cut by "%.200s" in the middle of a character, becomes
 * something a JSON document may carry (RFC 8259 requires UTF-8; json-c
 * writes strings as they are).
 */
void att_json_utf8_clean(char *s);

#endif
