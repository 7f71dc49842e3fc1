/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wldoc.h - how a whitelist is kept in storage: a small JSON wrapper
 * {"format": "json", "whitelist": {...}} or {"format": "legacy",
 * "legacy": "...", "excludes": "..."}, loaded with libattest's loaders.
 */
#ifndef ATTEST_VERIFIER_WLDOC_H
#define ATTEST_VERIFIER_WLDOC_H

#include <stddef.h>
#include <stdint.h>

struct att_wl;
struct json_object;

/*
 * A layered whitelist is stored as {"format": "layers", "layers":
 * [{"name": N, "version": V}, ...]}: the named whitelists, each judged in
 * that order (version 0: its newest, at every attestation). It has no
 * content of its own and no layer may be layered (docs/whitelist-layers.md).
 */
struct ver_wllayer {
	char name[129]; /* ATT_STORE_NAME_MAX + 1 */
	int64_t version;
};

/*
 * The layers of a stored document into out[ATT_WL_LAYERS_MAX]: *n = 0 when
 * the document is a plain whitelist. ATT_E_FORMAT (err) when malformed.
 */
int ver_wldoc_layers(const char *stored, size_t len, struct ver_wllayer *out,
		     size_t *n, char *err, size_t errlen);

/*
 * The stored form of a request's "layers" (an array of names or
 * {"name", "version"} objects, 1 to ATT_WL_LAYERS_MAX, no name twice).
 * Whether they exist is the caller's to check.
 */
int ver_wldoc_layers_from_request(struct json_object *layers, char **stored,
				  size_t *stored_len, struct ver_wllayer *out,
				  size_t *n, char *err, size_t errlen);

/*
 * Builds the stored form from a request object holding "whitelist"
 * (object) or "legacy" (string) and optional "excludes" (string), and
 * compiles it to prove it loads. err names what is wrong.
 */
int ver_wldoc_from_request(struct json_object *req, char **stored,
			   size_t *stored_len, struct att_wl **wl, char *err,
			   size_t errlen);
/* Compiles a stored document. */
int ver_wldoc_load(const char *stored, size_t len, struct att_wl **wl,
		   char *err, size_t errlen);
/* The stored document as a JSON object for GET (new reference). */
int ver_wldoc_to_json(const char *stored, size_t len, struct json_object **out);

/*
 * Gives the memory of a parsed whitelist document back to the system (a
 * list of 100,000 files is some 100 MB of JSON objects for a moment,
 * which the allocator would otherwise keep); done after every load and
 * after a whitelist request.
 */
void ver_wldoc_trim(void);

#endif
