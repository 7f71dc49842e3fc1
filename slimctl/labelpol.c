// SPDX-License-Identifier: Apache-2.0
/*
 * labelpol.c - labeling policies and `slimctl label`.
 *
 * A labeling policy names a label per path prefix, one rule per line:
 *
 *     # path          label
 *     /               SYSTEM PUBLIC
 *     /home           USER USER
 *     /srv/upload     UNTRUSTED PUBLIC
 *     /usr/sbin/sshd  SYSTEM PUBLIC guard-read=UNTRUSTED
 *
 * A file takes the label of the longest rule path that is the file itself
 * or one of its directories. Paths are absolute, without spaces; a path
 * may appear once.
 */
#include <errno.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/err.h"
#include "slimctl.h"

#define SLC_POLICY_MAX_RULES 10000
#define SLC_POLICY_MAX_LINE  4096

struct slc_rule {
	char *path;
	size_t len;
	struct slc_level lv;
};

struct slc_policy {
	struct slc_rule *r;
	size_t n;
};

void slc_policy_free(struct slc_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->r[i].path);
	free(p->r);
	free(p);
}

static int slc_policy_add(struct slc_policy *p, const char *file, size_t lineno,
			  char *line)
{
	char *path = line, *label;
	struct slc_level lv;
	size_t len;

	label = strpbrk(line, " \t");
	if (!label) {
		fprintf(stderr, "slimctl: %s:%zu: expected 'PATH LABEL'\n",
			file, lineno);
		return ATT_E_FORMAT;
	}
	*label++ = '\0';
	label += strspn(label, " \t");
	for (char *t = label; *t; t++)
		if (*t == '\t')
			*t = ' ';
	if (path[0] != '/') {
		fprintf(stderr, "slimctl: %s:%zu: path '%s' is not absolute\n",
			file, lineno, path);
		return ATT_E_FORMAT;
	}
	if (slc_label_parse(label, strlen(label), &lv) != ATT_OK) {
		fprintf(stderr, "slimctl: %s:%zu: bad label '%s'\n", file,
			lineno, label);
		return ATT_E_FORMAT;
	}
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	for (size_t i = 0; i < p->n; i++) {
		if (!strcmp(p->r[i].path, path)) {
			fprintf(stderr, "slimctl: %s:%zu: '%s' appears twice\n",
				file, lineno, path);
			return ATT_E_FORMAT;
		}
	}
	if (p->n == SLC_POLICY_MAX_RULES) {
		fprintf(stderr, "slimctl: %s: more than %d rules\n", file,
			SLC_POLICY_MAX_RULES);
		return ATT_E_TOO_BIG;
	}
	struct slc_rule *nr = realloc(p->r, (p->n + 1) * sizeof(*nr));
	if (!nr)
		return ATT_E_NOMEM;
	p->r = nr;
	p->r[p->n].path = strdup(path);
	if (!p->r[p->n].path)
		return ATT_E_NOMEM;
	p->r[p->n].len = len;
	p->r[p->n].lv = lv;
	p->n++;
	return ATT_OK;
}

int slc_policy_load(const char *file, struct slc_policy **out)
{
	char line[SLC_POLICY_MAX_LINE];
	struct slc_policy *p;
	size_t lineno = 0;
	int rc = ATT_OK;
	FILE *f;

	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "slimctl: %s: %s\n", file, strerror(errno));
		return ATT_E_IO;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return ATT_E_NOMEM;
	}
	while (rc == ATT_OK && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *s = line;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			fprintf(stderr, "slimctl: %s:%zu: line too long\n",
				file, lineno);
			rc = ATT_E_TOO_BIG;
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == ' ' ||
			       line[len - 1] == '\t' || line[len - 1] == '\r'))
			line[--len] = '\0';
		s += strspn(s, " \t");
		if (!*s || *s == '#')
			continue;
		rc = slc_policy_add(p, file, lineno, s);
	}
	if (rc == ATT_OK && ferror(f))
		rc = ATT_E_IO;
	fclose(f);
	if (rc == ATT_OK && p->n == 0) {
		fprintf(stderr, "slimctl: %s: no rules\n", file);
		rc = ATT_E_FORMAT;
	}
	if (rc != ATT_OK) {
		slc_policy_free(p);
		return rc;
	}
	*out = p;
	return ATT_OK;
}

const struct slc_level *slc_policy_lookup(const struct slc_policy *p,
					  const char *path, size_t *rule)
{
	const struct slc_rule *best = NULL;

	for (size_t i = 0; i < p->n; i++) {
		const struct slc_rule *r = &p->r[i];
		int covers;

		if (r->len == 1)
			covers = path[0] == '/';
		else
			covers = !strncmp(path, r->path, r->len) &&
				 (path[r->len] == '\0' || path[r->len] == '/');
		if (covers && (!best || r->len > best->len)) {
			best = r;
			if (rule)
				*rule = i;
		}
	}
	return best ? &best->lv : NULL;
}

static void slc_label_usage(FILE *f)
{
	fputs("NAME\n"
	      "    slimctl label - label a tree from a labeling policy\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    slimctl label [--root DIR] [--offline] [--dry-run] [-v] "
	      "POLICY\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Walks every path named in POLICY (without crossing into "
	      "other file\n"
	      "    systems or following symbolic links) and gives each "
	      "regular file\n"
	      "    and directory the label of the longest rule that covers "
	      "it (a\n"
	      "    directory without the rule's guards). Online "
	      "(default) the\n"
	      "    labels are set through the module "
	      "(" SLC_SECFS "/relabel,\n"
	      "    CAP_MAC_ADMIN and SYSTEM integrity); --offline sets the "
	      "security.slim\n"
	      "    xattr directly, for a file system image mounted at "
	      "--root on a\n"
	      "    machine that does not run the module.\n"
	      "\n"
	      "OPTIONS\n"
	      "    --root DIR  the policy's / is DIR (default /)\n"
	      "    --offline   write the xattr, do not use the module\n"
	      "    --dry-run   print 'LABEL<TAB>PATH' lines, change nothing\n"
	      "    -v          print every file labeled\n"
	      "\n"
	      "POLICY FORMAT\n"
	      "    One rule per line: an absolute path and a label, e.g.\n"
	      "        /           SYSTEM PUBLIC\n"
	      "        /home       USER USER\n"
	      "        /usr/sbin/x SYSTEM PUBLIC guard-read=UNTRUSTED\n"
	      "    '#' starts a comment line.\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0 every file labeled, 1 some file failed, 2 usage or "
	      "policy error.\n",
	      f);
}

struct slc_label_run {
	const struct slc_policy *pol;
	const char *root;
	size_t rootlen;
	int offline, dry, verbose;
	size_t labeled, failed;
};

/* walks the tree of rule i; files covered by a longer rule are left to it */
static void slc_label_rule(struct slc_label_run *run, size_t i)
{
	const struct slc_rule *r = &run->pol->r[i];
	char *top, label[SLC_LABEL_MAX + 1];
	char *paths[2];
	FTSENT *e;
	FTS *fts;

	if (asprintf(&top, "%s%s", run->root, r->len == 1 ? "" : r->path) < 0) {
		run->failed++;
		return;
	}
	if (!*top) {
		free(top);
		top = strdup("/");
		if (!top) {
			run->failed++;
			return;
		}
	}
	paths[0] = top;
	paths[1] = NULL;
	fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	if (!fts) {
		fprintf(stderr, "slimctl: %s: %s\n", top, strerror(errno));
		run->failed++;
		free(top);
		return;
	}
	while ((e = fts_read(fts)) != NULL) {
		const char *logical;
		const struct slc_level *lv;
		struct slc_level dirlv;
		size_t rule;

		if (e->fts_info == FTS_ERR || e->fts_info == FTS_DNR ||
		    e->fts_info == FTS_NS) {
			fprintf(stderr, "slimctl: %s: %s\n", e->fts_path,
				strerror(e->fts_errno));
			run->failed++;
			continue;
		}
		/* files, and directories (before their content) */
		if (e->fts_info != FTS_F && e->fts_info != FTS_D)
			continue;
		logical = e->fts_path + run->rootlen;
		if (!*logical)
			logical = "/";
		lv = slc_policy_lookup(run->pol, logical, &rule);
		if (!lv || rule != i)
			continue;
		/* guards are a program's: a directory takes the levels only */
		dirlv = *lv;
		if (e->fts_info == FTS_D) {
			dirlv.gread = SLC_I_NONE;
			dirlv.gwrite = SLC_S_NONE;
			lv = &dirlv;
		}
		if (slc_label_format(lv, label, sizeof(label)) != ATT_OK) {
			run->failed++;
			continue;
		}
		if (run->dry) {
			printf("%s\t%s\n", label, e->fts_path);
			run->labeled++;
			continue;
		}
		if (slc_set_label(e->fts_path, lv, run->offline) != ATT_OK) {
			run->failed++;
			continue;
		}
		if (run->verbose)
			printf("%s\t%s\n", label, e->fts_path);
		run->labeled++;
	}
	fts_close(fts);
	free(top);
}

int slc_cmd_label(int argc, char **argv)
{
	struct slc_label_run run = {.root = ""};
	const char *polfile = NULL;
	struct slc_policy *pol;
	char *root = NULL;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			slc_label_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			root = argv[++i];
		} else if (!strcmp(argv[i], "--offline")) {
			run.offline = 1;
		} else if (!strcmp(argv[i], "--dry-run")) {
			run.dry = 1;
		} else if (!strcmp(argv[i], "-v")) {
			run.verbose = 1;
		} else if (argv[i][0] != '-' && !polfile) {
			polfile = argv[i];
		} else {
			slc_label_usage(stderr);
			return 2;
		}
	}
	if (!polfile) {
		slc_label_usage(stderr);
		return 2;
	}
	if (root) {
		size_t len = strlen(root);

		while (len > 1 && root[len - 1] == '/')
			root[--len] = '\0';
		run.root = strcmp(root, "/") ? root : "";
	}
	run.rootlen = strlen(run.root);
	rc = slc_policy_load(polfile, &pol);
	if (rc != ATT_OK)
		return 2;
	run.pol = pol;
	for (size_t i = 0; i < pol->n; i++)
		slc_label_rule(&run, i);
	slc_policy_free(pol);
	fprintf(stderr, "slimctl: %s %zu files, %zu failed\n",
		run.dry ? "would label" : "labeled", run.labeled, run.failed);
	return run.failed ? 1 : 0;
}
