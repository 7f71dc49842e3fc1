// SPDX-License-Identifier: Apache-2.0
/*
 * uefilog.c - the firmware event log, read whole from an fd kept open
 * across the privilege drop.
 */
#include "uefilog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest/err.h"
#include "attest/log.h"

struct agent_uefi_log {
	char *path;
	int fd;
};

int agent_uefi_log_open(const char *path, struct agent_uefi_log **out)
{
	const char *p = path ? path : AGENT_UEFI_LOG_DEFAULT;
	struct agent_uefi_log *u;
	int fd;

	*out = NULL;
	if (path && !strcmp(path, "none"))
		return ATT_OK;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!path && (errno == ENOENT || errno == ENOTDIR)) {
			att_info("no firmware event log at %s: not sent", p);
			return ATT_OK;
		}
		att_err("uefi_log: cannot open %s: %s", p, strerror(errno));
		return ATT_E_IO;
	}
	u = calloc(1, sizeof(*u));
	if (!u || !(u->path = strdup(p))) {
		free(u);
		close(fd);
		return ATT_E_NOMEM;
	}
	u->fd = fd;
	*out = u;
	return ATT_OK;
}

void agent_uefi_log_free(struct agent_uefi_log *u)
{
	if (!u)
		return;
	close(u->fd);
	free(u->path);
	free(u);
}

const char *agent_uefi_log_path(const struct agent_uefi_log *u)
{
	return u ? u->path : "";
}

int agent_uefi_log_read(struct agent_uefi_log *u, struct att_buf *b)
{
	uint8_t chunk[16384];
	ssize_t n;

	b->len = 0;
	/* securityfs seq files rewind with lseek(0); a plain file too */
	if (lseek(u->fd, 0, SEEK_SET) < 0) {
		att_err("uefi_log: cannot rewind %s: %s", u->path,
			strerror(errno));
		return ATT_E_IO;
	}
	for (;;) {
		n = read(u->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			att_err("uefi_log: cannot read %s: %s", u->path,
				strerror(errno));
			return ATT_E_IO;
		}
		if (n == 0)
			break;
		if (b->len + (size_t)n > AGENT_UEFI_LOG_MAX) {
			att_err("uefi_log: %s is larger than %u bytes", u->path,
				AGENT_UEFI_LOG_MAX);
			return ATT_E_TOO_BIG;
		}
		if (att_buf_append(b, chunk, (size_t)n))
			return ATT_E_NOMEM;
	}
	return ATT_OK;
}
