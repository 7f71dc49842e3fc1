// SPDX-License-Identifier: Apache-2.0
/*
 * sys.c - slimctl commands that talk to the module through its
 * securityfs files: status, mode, show, ps, relabel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "attest/err.h"
#include "slimctl.h"

#define SLC_READ_MAX (16u << 20)

const char *slc_secfs(void)
{
	const char *d = getenv("SLIMCTL_SECFS");

	return d && *d ? d : SLC_SECFS;
}

/* the whole content of securityfs file NAME, NUL-terminated */
int slc_read_secfs(const char *name, char **out)
{
	char path[PATH_MAX], *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", slc_secfs(), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			fprintf(stderr,
				"slimctl: %s: missing (is the slim module "
				"loaded?)\n",
				path);
		else
			fprintf(stderr, "slimctl: %s: %s\n", path,
				strerror(errno));
		return ATT_E_IO;
	}
	for (;;) {
		if (cap - len < 4096) {
			if (cap >= SLC_READ_MAX) {
				fprintf(stderr, "slimctl: %s: too large\n",
					path);
				free(buf);
				close(fd);
				return ATT_E_TOO_BIG;
			}
			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return ATT_E_NOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "slimctl: %s: %s\n", path,
				strerror(errno));
			free(buf);
			close(fd);
			return ATT_E_IO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return ATT_OK;
}

/* one write(2) of LEN bytes to securityfs file NAME; errno kept */
int slc_write_secfs(const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/%s", slc_secfs(), name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		fprintf(stderr, "slimctl: %s: %s\n", path, strerror(e));
		errno = e;
		return ATT_E_IO;
	}
	n = write(fd, data, len);
	e = errno;
	close(fd);
	if (n != (ssize_t)len) {
		errno = n < 0 ? e : EIO;
		return ATT_E_IO;
	}
	return ATT_OK;
}

int slc_set_label(const char *path, const struct slc_level *l, int offline)
{
	char label[SLC_LABEL_MAX + 1], abs[PATH_MAX], *rec;
	int rc, n;

	rc = slc_label_format(l, label, sizeof(label));
	if (rc != ATT_OK)
		return rc;
	if (offline) {
		if (lsetxattr(path, SLC_XATTR, label, strlen(label), 0)) {
			fprintf(stderr, "slimctl: %s: cannot set %s: %s\n",
				path, SLC_XATTR, strerror(errno));
			return ATT_E_IO;
		}
		return ATT_OK;
	}
	if (!realpath(path, abs)) {
		fprintf(stderr, "slimctl: %s: %s\n", path, strerror(errno));
		return ATT_E_IO;
	}
	n = asprintf(&rec, "%s\t%s", label, abs);
	if (n < 0)
		return ATT_E_NOMEM;
	rc = slc_write_secfs("relabel", rec, (size_t)n);
	if (rc != ATT_OK)
		fprintf(stderr, "slimctl: %s: relabel refused: %s\n", abs,
			errno == EPERM ? "not permitted (CAP_MAC_ADMIN and "
					 "SYSTEM integrity needed)"
				       : strerror(errno));
	free(rec);
	return rc;
}

int slc_cmd_status(int argc, char **argv)
{
	char *status, *counters;

	(void)argv;
	if (argc > 1) {
		fputs("usage: slimctl status\n", stderr);
		return 2;
	}
	if (slc_read_secfs("status", &status) != ATT_OK)
		return 1;
	if (slc_read_secfs("counters", &counters) != ATT_OK) {
		free(status);
		return 1;
	}
	fputs(status, stdout);
	fputs(counters, stdout);
	free(status);
	free(counters);
	return 0;
}

int slc_cmd_mode(int argc, char **argv)
{
	char *mode;

	if (argc == 1) {
		if (slc_read_secfs("mode", &mode) != ATT_OK)
			return 1;
		fputs(mode, stdout);
		free(mode);
		return 0;
	}
	if (argc != 2 ||
	    (strcmp(argv[1], "enforce") && strcmp(argv[1], "permissive") &&
	     strcmp(argv[1], "off"))) {
		fputs("usage: slimctl mode [enforce|permissive|off]\n", stderr);
		return 2;
	}
	if (slc_write_secfs("mode", argv[1], strlen(argv[1])) != ATT_OK) {
		fprintf(stderr, "slimctl: mode %s refused: %s\n", argv[1],
			errno == EPERM ? "not permitted (CAP_MAC_ADMIN and "
					 "SYSTEM integrity needed)"
				       : strerror(errno));
		return 1;
	}
	return 0;
}

/* "default_label X Y" from the status file, or the module's default */
static void slc_default_label(char *buf, size_t size)
{
	char *status, *p, *end;

	snprintf(buf, size, "SYSTEM PUBLIC");
	if (slc_read_secfs("status", &status) != ATT_OK)
		return;
	p = strstr(status, "default_label ");
	if (p) {
		p += strlen("default_label ");
		end = strchr(p, '\n');
		if (end)
			*end = '\0';
		snprintf(buf, size, "%s", p);
	}
	free(status);
}

int slc_cmd_show(int argc, char **argv)
{
	char val[SLC_LABEL_MAX + 2], def[SLC_LABEL_MAX + 1];
	char canon[SLC_LABEL_MAX + 1];
	struct slc_level l;
	int bad = 0, have_def = 0;

	if (argc < 2) {
		fputs("usage: slimctl show FILE...\n", stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		ssize_t n = getxattr(argv[i], SLC_XATTR, val, sizeof(val) - 1);

		if (n < 0 && (errno == ENODATA || errno == ENOTSUP)) {
			if (!have_def) {
				slc_default_label(def, sizeof(def));
				have_def = 1;
			}
			printf("%s\t%s\t(%s)\n", argv[i], def,
			       errno == ENODATA
				       ? "unlabeled: the default label"
				       : "no xattrs here: default, or a "
					 "label kept in memory");
			continue;
		}
		if (n < 0) {
			fprintf(stderr, "slimctl: %s: %s\n", argv[i],
				strerror(errno));
			bad = 1;
			continue;
		}
		val[n] = '\0';
		if (slc_label_parse(val, (size_t)n, &l) != ATT_OK) {
			printf("%s\tUNTRUSTED PUBLIC\t(bad label '%.*s')\n",
			       argv[i], (int)strcspn(val, "\n"), val);
			continue;
		}
		if (slc_label_format(&l, canon, sizeof(canon)) == ATT_OK)
			printf("%s\t%s\thmac: %s\n", argv[i], canon,
			       getxattr(argv[i], SLC_EVM_XATTR, NULL, 0) == 33
				       ? "present"
				       : "absent");
	}
	return bad;
}

int slc_cmd_ps(int argc, char **argv)
{
	int changed = 0;
	char *tasks, *line, *save = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--changed") || !strcmp(argv[i], "-c")) {
			changed = 1;
		} else {
			fputs("usage: slimctl ps [--changed]\n", stderr);
			return 2;
		}
	}
	if (slc_read_secfs("tasks", &tasks) != ATT_OK)
		return 1;
	printf("%7s  %-40s  %s\n", "PID", "LABEL", "COMMAND");
	for (line = strtok_r(tasks, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *label = strchr(line, '\t'), *comm;

		if (!label)
			continue;
		*label++ = '\0';
		comm = strchr(label, '\t');
		if (!comm)
			continue;
		*comm++ = '\0';
		if (changed && !strcmp(label, "SYSTEM PUBLIC"))
			continue;
		printf("%7s  %-40s  %s\n", line, label, comm);
	}
	free(tasks);
	return 0;
}

int slc_cmd_relabel(int argc, char **argv)
{
	struct slc_level l;
	int offline = 0, i = 1, bad = 0;

	if (i < argc && !strcmp(argv[i], "--offline")) {
		offline = 1;
		i++;
	}
	if (argc - i < 2) {
		fputs("usage: slimctl relabel [--offline] LABEL FILE...\n",
		      stderr);
		return 2;
	}
	if (slc_label_parse(argv[i], strlen(argv[i]), &l) != ATT_OK) {
		fprintf(stderr, "slimctl: '%s' is not a label\n", argv[i]);
		return 2;
	}
	for (i++; i < argc; i++)
		if (slc_set_label(argv[i], &l, offline) != ATT_OK)
			bad = 1;
	return bad;
}
