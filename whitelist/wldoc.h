/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wldoc.h - a whitelist document being built or edited by attest-whitelist.
 *
 * The document is a json-c tree of the native format; every change keeps
 * it valid, and wldoc_write() emits it deterministically (keys sorted,
 * digests sorted and unique, two-space indentation) and atomically.
 * Judging never uses this: the verifier compiles documents with
 * att_wl_load_json().
 */
#ifndef ATTEST_WLDOC_H
#define ATTEST_WLDOC_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

struct wldoc {
	struct json_object *root;
};

int wldoc_new(struct wldoc **out);
/* Loads native JSON (checked by the engine's strict loader first). */
int wldoc_load(const char *path, struct wldoc **out, char *err, size_t errlen);
void wldoc_free(struct wldoc *d);

/* Adds "alg:hex"-free hex digest for path (UTF-8 path required). */
int wldoc_add_digest(struct wldoc *d, const char *path, const char *hex);
/* Removes a path (digest NULL) or one digest; ATT_E_NOT_FOUND if absent. */
int wldoc_remove(struct wldoc *d, const char *path, const char *hex);
int wldoc_add_exclude(struct wldoc *d, const char *regex);
/* Adds a digest to "ima-buf" (name as measured: kexec-cmdline, ...). */
int wldoc_add_buf(struct wldoc *d, const char *name, const char *hex);
/* Merges src into d: digests, excludes, keyrings, ima-buf, ignored keyrings. */
int wldoc_merge(struct wldoc *d, const struct wldoc *src);
/* Sets meta fields: generator, version, timestamp, source, hash_alg. */
int wldoc_set_meta(struct wldoc *d, const char *source, const char *hash_alg);

size_t wldoc_path_count(const struct wldoc *d);

/* Serialises deterministically; to "-" for standard output. */
int wldoc_write(const struct wldoc *d, const char *path);
/* The serialised text (caller frees). */
int wldoc_to_string(const struct wldoc *d, char **out);

/* 1 when s is valid UTF-8 without NUL. */
int wldoc_utf8_ok(const uint8_t *s, size_t n);

#endif
