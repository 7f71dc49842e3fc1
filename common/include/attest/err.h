/* SPDX-License-Identifier: Apache-2.0 */
/*
 * err.h - the project error enum.
 *
 * Every fallible libattest function returns an int: ATT_OK (0) or one of the
 * negative ATT_E_* codes below. A verification failure (ATT_E_VERIFY) is a
 * verdict about the evidence; every other code is an error in reading or
 * processing it and must never be reported as "trusted".
 */
#ifndef ATTEST_ERR_H
#define ATTEST_ERR_H

enum att_err {
	ATT_OK = 0,
	ATT_E_NOMEM = -1,	/* allocation failed */
	ATT_E_INVAL = -2,	/* bad argument from the caller */
	ATT_E_TRUNCATED = -3,	/* input ends inside a record */
	ATT_E_TOO_BIG = -4,	/* a length is over its cap */
	ATT_E_FORMAT = -5,	/* malformed input */
	ATT_E_UNSUPPORTED = -6, /* unknown template, algorithm or type */
	ATT_E_IO = -7,		/* read/write/open failed (see errno) */
	ATT_E_CRYPTO = -8,	/* the crypto library failed */
	ATT_E_NOT_FOUND = -9,	/* no such item */
	ATT_E_VERIFY = -10,	/* evidence checked and found wrong */
	ATT_E_TRAILING = -11,	/* bytes left after the last record */
	ATT_E_EXISTS = -12,	/* item already present */
	ATT_E_TPM = -13,	/* the TPM or its stack failed */
	ATT_E_STATE = -14,	/* call not valid in the current state */
	ATT_E_INTERNAL = -15,	/* a bug: an invariant does not hold */
	ATT_E_EOF = -16,     /* clean end of input (not an error for streams) */
	ATT_E_DB = -17,	     /* storage failed */
	ATT_E_NET = -18,     /* network/transport failed */
	ATT_E_AUTH = -19,    /* not authorised */
	ATT_E_TIMEOUT = -20, /* a deadline passed */
};

#define ATT_E_MIN ATT_E_TIMEOUT

/* A short, static, English description of an error code. Never NULL. */
const char *att_strerror(int err);

/* The code's symbolic name ("ATT_E_FORMAT"), for logs and JSON. Never NULL. */
const char *att_errname(int err);

#endif
