// SPDX-License-Identifier: Apache-2.0
/*
 * walk.c - walks a root filesystem (never following symlinks) and hashes
 * the files a measurement policy would see, in parallel.
 *
 * Candidates (without --all): files with an execute bit, ELF objects,
 * scripts with a "#!" line, kernel modules (*.ko, *.ko.xz, *.ko.zst,
 * *.ko.gz). Every file that cannot be taken is reported on stderr with the
 * reason and counted; none is dropped silently.
 */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attest/buf.h"
#include "attest/codec.h"
#include "attest/err.h"
#include "pkg.h"

#define WALK_MAX_DEPTH 256
#define CHUNK	       (256 * 1024)

void walk_init(struct walk *w)
{
	memset(w, 0, sizeof(*w));
}

void walk_release(struct walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->f[i].path);
		free(w->f[i].fs_path);
	}
	free(w->f);
	memset(w, 0, sizeof(*w));
}

static void report(const char *what, const char *path, const char *why)
{
	struct att_buf b;

	att_buf_init(&b, 0);
	att_escape_bytes((const uint8_t *)path, strlen(path), &b);
	att_buf_cstr(&b);
	fprintf(stderr, "attest-whitelist: %s: %s%s%s\n", what,
		b.data ? (char *)b.data : "", why ? ": " : "", why ? why : "");
	att_buf_release(&b);
}

struct walk_ctx {
	struct walk *w;
	const struct walk_opts *o;
	dev_t anc_dev[WALK_MAX_DEPTH];
	ino_t anc_ino[WALK_MAX_DEPTH];
	int depth;
};

static int matches(const regex_t *re, const char *path)
{
	return re && regexec(re, path, 0, NULL, 0) == 0;
}

static int add_file(struct walk *w, const char *path, const char *fs,
		    const struct stat *st)
{
	struct walk_file *f;

	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 1024;
		struct walk_file *nf = realloc(w->f, nc * sizeof(*nf));

		if (!nf)
			return ATT_E_NOMEM;
		w->f = nf;
		w->cap = nc;
	}
	f = &w->f[w->n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->fs_path = strdup(fs);
	if (!f->path || !f->fs_path) {
		free(f->path);
		free(f->fs_path);
		return ATT_E_NOMEM;
	}
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->ctime = st->st_ctim;
	f->exec = (st->st_mode & 0111) != 0;
	w->n++;
	w->st.files++;
	w->st.bytes_total += (uint64_t)st->st_size;
	return ATT_OK;
}

static int walk_dir(struct walk_ctx *c, const char *fs, const char *mapped)
{
	DIR *d = opendir(fs);
	struct dirent *de;
	int rc = ATT_OK;

	if (!d) {
		c->w->st.unreadable++;
		report("unreadable directory", fs, strerror(errno));
		return ATT_OK;
	}
	while ((de = readdir(d))) {
		struct att_buf p, m;
		struct stat st;
		size_t i;
		int skip = 0;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		att_buf_init(&p, 0);
		att_buf_init(&m, 0);
		if (att_buf_printf(&p, "%s/%s", fs, de->d_name) ||
		    att_buf_printf(&m, "%s/%s",
				   !strcmp(mapped, "/") ? "" : mapped,
				   de->d_name) ||
		    att_buf_cstr(&p) || att_buf_cstr(&m)) {
			att_buf_release(&p);
			att_buf_release(&m);
			rc = ATT_E_NOMEM;
			break;
		}
		if (lstat((char *)p.data, &st) < 0) {
			c->w->st.unreadable++;
			report("cannot stat", (char *)p.data, strerror(errno));
			goto next;
		}
		for (i = 0; i < c->o->nskip; i++)
			if (!strcmp((char *)m.data, c->o->skip[i]))
				skip = 1;
		if (!skip && S_ISDIR(st.st_mode)) {
			/* "/proc/" style patterns also prune the directory. */
			size_t ml = m.len;

			if (!att_buf_append(&m, "/", 2)) {
				skip = matches(c->o->excl, (char *)m.data);
				m.len = ml;
				m.data[ml] = '\0';
			}
		}
		if (skip || matches(c->o->excl, (char *)m.data)) {
			c->w->st.excluded++;
			goto next;
		}
		if (S_ISDIR(st.st_mode)) {
			int k, loop = 0;

			for (k = 0; k < c->depth; k++)
				if (c->anc_dev[k] == st.st_dev &&
				    c->anc_ino[k] == st.st_ino)
					loop = 1;
			if (loop || c->depth >= WALK_MAX_DEPTH) {
				c->w->st.loops++;
				report(loop ? "directory loop (bind mount?)"
					    : "directory nesting too deep",
				       (char *)p.data, NULL);
				goto next;
			}
			c->anc_dev[c->depth] = st.st_dev;
			c->anc_ino[c->depth] = st.st_ino;
			c->depth++;
			rc = walk_dir(c, (char *)p.data, (char *)m.data);
			c->depth--;
		} else if (S_ISLNK(st.st_mode)) {
			/* Its target is measured under the target's path. */
			c->w->st.symlinks++;
		} else if (S_ISREG(st.st_mode)) {
			if (c->o->incl && !matches(c->o->incl, (char *)m.data))
				c->w->st.excluded++;
			else
				rc = add_file(c->w, (char *)m.data,
					      (char *)p.data, &st);
		} else {
			c->w->st.special++;
			report("special file not hashed", (char *)p.data,
			       S_ISFIFO(st.st_mode)   ? "fifo"
			       : S_ISSOCK(st.st_mode) ? "socket"
			       : S_ISCHR(st.st_mode)  ? "character device"
						      : "block device");
		}
	next:
		att_buf_release(&p);
		att_buf_release(&m);
		if (rc)
			break;
	}
	closedir(d);
	return rc;
}

int walk_collect(struct walk *w, const struct walk_opts *o)
{
	struct walk_ctx c = {.w = w, .o = o};
	struct stat st;
	const char *mapped = o->prefix && *o->prefix ? o->prefix : "/";

	if (stat(o->root, &st) < 0 || !S_ISDIR(st.st_mode))
		return ATT_E_IO;
	c.anc_dev[0] = st.st_dev;
	c.anc_ino[0] = st.st_ino;
	c.depth = 1;
	return walk_dir(&c, o->root, mapped);
}

/* The same selection as for packages and initramfs images (pkg.h). */
static int is_candidate(const struct walk_file *f, const uint8_t *head,
			size_t n)
{
	return pkg_is_candidate(f->path, f->exec, head, n);
}

struct pool {
	struct walk *w;
	enum att_hash h;
	int all;
	atomic_size_t next;
	atomic_size_t done;
	atomic_uint_fast64_t bytes;
};

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static void hash_one(struct pool *pl, struct walk_file *f, uint8_t *buf,
		     struct att_md *md)
{
	struct stat a, b;
	ssize_t n;
	int fd, first = 1;

	fd = open(f->fs_path,
		  O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		f->status = WALK_UNREADABLE;
		f->err = errno;
		return;
	}
	if (fstat(fd, &a) < 0 || !S_ISREG(a.st_mode) || a.st_ino != f->ino ||
	    a.st_dev != f->dev) {
		f->status = WALK_CHANGED;
		close(fd);
		return;
	}
	att_md_init(md);
	for (;;) {
		n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			f->status = WALK_UNREADABLE;
			f->err = errno;
			close(fd);
			return;
		}
		if (first && !pl->all && !is_candidate(f, buf, (size_t)n)) {
			f->status = WALK_NOT_CANDIDATE;
			close(fd);
			return;
		}
		first = 0;
		if (n == 0)
			break;
		att_md_update(md, buf, (size_t)n);
		atomic_fetch_add(&pl->bytes, (uint64_t)n);
	}
	att_md_final(md, f->digest);
	if (fstat(fd, &b) < 0 || b.st_size != a.st_size ||
	    !same_time(&b.st_mtim, &a.st_mtim) ||
	    !same_time(&b.st_ctim, &a.st_ctim) ||
	    !same_time(&a.st_mtim, &f->mtime))
		f->status = WALK_CHANGED;
	else
		f->status = WALK_HASHED;
	close(fd);
}

static void *worker(void *arg)
{
	struct pool *pl = arg;
	struct att_md *md;
	uint8_t *buf = malloc(CHUNK);

	if (!buf || att_md_new(pl->h, &md)) {
		free(buf);
		return (void *)1;
	}
	for (;;) {
		size_t i = atomic_fetch_add(&pl->next, 1);

		if (i >= pl->w->n)
			break;
		if (pl->w->f[i].status != WALK_DUPLICATE)
			hash_one(pl, &pl->w->f[i], buf, md);
		atomic_fetch_add(&pl->done, 1);
	}
	att_md_free(md);
	free(buf);
	return NULL;
}

static int cmp_inode(const void *a, const void *b)
{
	const struct walk_file *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void progress_line(const struct pool *pl, double elapsed, int final)
{
	size_t done = atomic_load(&pl->done);
	uint64_t bytes = atomic_load(&pl->bytes);
	double rate = elapsed > 0 ? (double)bytes / elapsed : 0;
	double left = (double)(pl->w->st.bytes_total - bytes);
	double eta = rate > 0 ? left / rate : 0;

	fprintf(stderr,
		"\r  %zu/%zu files, %.1f/%.1f MiB, %.1f MiB/s, ETA %.0fs   %s",
		done, pl->w->n, (double)bytes / 1048576.0,
		(double)pl->w->st.bytes_total / 1048576.0, rate / 1048576.0,
		final ? 0.0 : eta, final ? "\n" : "");
}

int walk_hash(struct walk *w, enum att_hash h, int all, unsigned int threads,
	      int progress)
{
	struct pool pl = {.w = w, .h = h, .all = all};
	pthread_t tid[64];
	struct timespec t0, t1;
	unsigned int i, started = 0;
	size_t k;
	int rc = ATT_OK;

	/* Hard links: hash each inode once. */
	qsort(w->f, w->n, sizeof(*w->f), cmp_inode);
	for (k = 1; k < w->n; k++) {
		if (w->f[k].dev == w->f[k - 1].dev &&
		    w->f[k].ino == w->f[k - 1].ino) {
			w->f[k].status = WALK_DUPLICATE;
			w->f[k].dup_of = w->f[k - 1].status == WALK_DUPLICATE
						 ? w->f[k - 1].dup_of
						 : k - 1;
			w->st.hardlinks++;
		}
	}
	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, worker, &pl))
			break;
		started++;
	}
	if (!started)
		return ATT_E_NOMEM;
	while (progress && atomic_load(&pl.done) < w->n) {
		struct timespec ts = {0, 200 * 1000 * 1000};

		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		progress_line(&pl,
			      (double)(t1.tv_sec - t0.tv_sec) +
				      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			      0);
	}
	for (i = 0; i < started; i++) {
		void *ret;

		pthread_join(tid[i], &ret);
		if (ret)
			rc = ATT_E_NOMEM;
	}
	if (progress) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		progress_line(&pl,
			      (double)(t1.tv_sec - t0.tv_sec) +
				      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			      1);
	}
	w->st.bytes_done = atomic_load(&pl.bytes);
	w->st.files_done = atomic_load(&pl.done);
	for (k = 0; k < w->n; k++) {
		struct walk_file *f = &w->f[k];

		if (f->status == WALK_DUPLICATE) {
			const struct walk_file *o = &w->f[f->dup_of];

			f->status = o->status;
			f->err = o->err;
			memcpy(f->digest, o->digest, sizeof(f->digest));
		}
		switch (f->status) {
		case WALK_UNREADABLE:
			w->st.unreadable++;
			report("unreadable file", f->fs_path, strerror(f->err));
			break;
		case WALK_CHANGED:
			w->st.changed++;
			report("file changed while being hashed (not included)",
			       f->fs_path, NULL);
			break;
		case WALK_NOT_CANDIDATE:
			w->st.not_candidate++;
			break;
		default:
			break;
		}
	}
	return rc;
}
