/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ima.h - IMA measurement lists (binary and ascii), streamed.
 *
 * A reader yields one entry at a time; an entry's pointers stay valid until
 * the next call on the same reader, so a list of any length needs memory for
 * one entry only. Readers can start at an entry index and byte offset
 * (att_ima_reader_seek), so a verifier or agent resumes where it stopped.
 *
 * Every length is capped (struct att_ima_limits), unknown templates and
 * algorithms are rejected, and a record cut short is ATT_E_TRUNCATED (the
 * reader's position stays at the start of that record).
 */
#ifndef ATTEST_IMA_H
#define ATTEST_IMA_H

#include <stddef.h>
#include <stdint.h>

#include "attest/digest.h"

#define ATT_IMA_MAX_FIELDS	16
#define ATT_IMA_LEGACY_NAME_MAX 255 /* IMA_EVENT_NAME_LEN_MAX */

enum att_ima_field_id {
	ATT_IMA_F_D,	    /* legacy digest (20 bytes) */
	ATT_IMA_F_N,	    /* legacy name (no NUL) */
	ATT_IMA_F_D_NG,	    /* "algo:\0" || digest */
	ATT_IMA_F_D_NGV2,   /* "ima:algo:\0" / "verity:algo:\0" || digest */
	ATT_IMA_F_N_NG,	    /* name || NUL */
	ATT_IMA_F_SIG,	    /* security.ima signature or empty */
	ATT_IMA_F_BUF,	    /* measured buffer */
	ATT_IMA_F_D_MODSIG, /* d-ng of the file without its modsig */
	ATT_IMA_F_MODSIG,   /* appended signature */
	ATT_IMA_F_EVMSIG,
	ATT_IMA_F_XATTRNAMES,
	ATT_IMA_F_XATTRLENGTHS,
	ATT_IMA_F_XATTRVALUES,
	ATT_IMA_F_IUID,
	ATT_IMA_F_IGID,
	ATT_IMA_F_IMODE,
	ATT_IMA_F_COUNT,
};

/* The field's identifier as in a template format string ("d-ng"). */
const char *att_ima_field_name(enum att_ima_field_id id);

/* A template: its fields in order. */
struct att_ima_template {
	unsigned int nfields;
	enum att_ima_field_id fields[ATT_IMA_MAX_FIELDS];
	int legacy; /* the "ima" template: no data_len, special hash */
};

/*
 * Resolves a template name as it appears in a list: a built-in name
 * ("ima-ng") or a custom format string ("d-ng|n-ng|sig").
 */
int att_ima_template_parse(const char *name, size_t len,
			   struct att_ima_template *t);

struct att_ima_limits {
	uint32_t max_name; /* template name bytes, default 255 */
	uint32_t max_data; /* template data bytes, default 256 KiB */
	uint32_t max_path; /* n-ng / n bytes, default 4096 + 1 */
	uint32_t max_pcr;  /* highest PCR index, default 23 */
};

enum att_ima_format {
	ATT_IMA_FMT_AUTO = 0,
	ATT_IMA_FMT_BINARY,
	ATT_IMA_FMT_ASCII,
};

struct att_ima_field {
	enum att_ima_field_id id;
	const uint8_t *data;
	uint32_t len;
};

struct att_ima_entry {
	uint64_t index;	      /* 0-based entry number in the list */
	uint64_t offset;      /* byte offset of the entry in the input */
	uint64_t next_offset; /* byte offset of the next entry */
	uint32_t pcr;

	enum att_hash tdigest_alg; /* the list's template digest bank */
	uint8_t tdigest[ATT_DIGEST_MAX];
	int violation; /* template digest is all zero */

	const char *template_name; /* NUL-terminated */
	struct att_ima_template tmpl;
	struct att_ima_field fields[ATT_IMA_MAX_FIELDS];

	/*
	 * The bytes the template hash covers: the template data with each
	 * field's u32 length (all templates but "ima"), or digest || name
	 * padded to 256 bytes ("ima").
	 */
	const uint8_t *hash_input;
	size_t hash_input_len;

	/* Decoded for judging; NULL/0 when the template has no such field. */
	enum att_hash file_alg;
	const uint8_t *file_digest;
	size_t file_digest_len;
	const uint8_t *path; /* not NUL-terminated, may hold any byte */
	size_t path_len;
	const uint8_t *sig;
	size_t sig_len;
	const uint8_t *buf;
	size_t buf_len;
};

struct att_ima_reader;

/*
 * Opens a reader over a file descriptor (not owned, not closed) or a
 * memory range (not copied; must outlive the reader). tdigest_alg names
 * the bank of the template digests in the list: ATT_HASH_SHA1 for the
 * legacy files, the bank for *_runtime_measurements_<algo>.
 * limits may be NULL for the defaults.
 */
int att_ima_reader_new_fd(int fd, enum att_ima_format fmt,
			  enum att_hash tdigest_alg,
			  const struct att_ima_limits *limits,
			  struct att_ima_reader **out);
int att_ima_reader_new_mem(const void *p, size_t len, enum att_ima_format fmt,
			   enum att_hash tdigest_alg,
			   const struct att_ima_limits *limits,
			   struct att_ima_reader **out);
void att_ima_reader_free(struct att_ima_reader *r);

/* The detected (or given) format; valid after the first next() call. */
enum att_ima_format att_ima_reader_format(const struct att_ima_reader *r);

/*
 * Positions the reader at byte offset `offset`, where entry `index` starts
 * (both as earlier reported in an entry's next_offset/index+1).
 */
int att_ima_reader_seek(struct att_ima_reader *r, uint64_t index,
			uint64_t offset);

/* Skips forward until the next entry to read is `index`. */
int att_ima_reader_skip_to(struct att_ima_reader *r, uint64_t index);

/*
 * Reads the next entry. ATT_OK with *e filled; ATT_E_EOF at a clean end;
 * another error on bad input (the position stays at the bad record, and
 * att_ima_reader_error() tells where and why).
 */
int att_ima_reader_next(struct att_ima_reader *r, struct att_ima_entry *e);

/* A human-readable description of the last error, with its offset. */
const char *att_ima_reader_error(const struct att_ima_reader *r);

/* Detects binary vs ascii from the first bytes of a list. */
enum att_ima_format att_ima_detect(const uint8_t *p, size_t len);

/*
 * Decodes the template data of a non-legacy entry into fields (also used
 * by tests and the generator). Fills e->fields and the decoded members.
 */
int att_ima_decode_fields(struct att_ima_entry *e, const uint8_t *data,
			  size_t len, const struct att_ima_limits *lim);

#endif
