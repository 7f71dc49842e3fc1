// SPDX-License-Identifier: Apache-2.0
/*
 * log.c - leveled logging.
 */
#include "attest/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "attest/err.h"

static enum att_log_level log_level = ATT_LOG_WARN;
static const char *log_ident = "attest";
static att_log_fn log_sink;
static void *log_sink_arg;

static const char *const level_names[] = {"err", "warn", "info", "debug"};

void att_log_set_level(enum att_log_level lvl)
{
	log_level = lvl;
}

enum att_log_level att_log_get_level(void)
{
	return log_level;
}

void att_log_set_ident(const char *ident)
{
	log_ident = ident;
}

void att_log_set_sink(att_log_fn fn, void *arg)
{
	log_sink = fn;
	log_sink_arg = arg;
}

int att_log_parse_level(const char *s, enum att_log_level *lvl)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (!strcmp(s, level_names[i])) {
			*lvl = (enum att_log_level)i;
			return ATT_OK;
		}
	}
	return ATT_E_INVAL;
}

void att_log(enum att_log_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (lvl > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_sink) {
		log_sink(lvl, msg, log_sink_arg);
		return;
	}
	fprintf(stderr, "%s: %s: %s\n", log_ident, level_names[lvl], msg);
}
