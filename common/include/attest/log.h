/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log.h - logging to stderr (or a callback) with levels.
 */
#ifndef ATTEST_LOG_H
#define ATTEST_LOG_H

enum att_log_level {
	ATT_LOG_ERR = 0,
	ATT_LOG_WARN = 1,
	ATT_LOG_INFO = 2,
	ATT_LOG_DEBUG = 3,
};

typedef void (*att_log_fn)(enum att_log_level lvl, const char *msg, void *arg);

void att_log_set_level(enum att_log_level lvl);
enum att_log_level att_log_get_level(void);
/* Sets the program name printed before each line ("attest-agent"). */
void att_log_set_ident(const char *ident);
/* Routes lines to fn instead of stderr (NULL restores stderr). */
void att_log_set_sink(att_log_fn fn, void *arg);
/* Parses "err", "warn", "info", "debug". */
int att_log_parse_level(const char *s, enum att_log_level *lvl);

void att_log(enum att_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define att_err(...)   att_log(ATT_LOG_ERR, __VA_ARGS__)
#define att_warn(...)  att_log(ATT_LOG_WARN, __VA_ARGS__)
#define att_info(...)  att_log(ATT_LOG_INFO, __VA_ARGS__)
#define att_debug(...) att_log(ATT_LOG_DEBUG, __VA_ARGS__)

#endif
