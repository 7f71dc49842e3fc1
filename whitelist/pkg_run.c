// SPDX-License-Identifier: Apache-2.0
/*
 * pkg_run.c - reads package files and initramfs images in worker threads:
 * each file's SHA-256 checked against its index first (when an index
 * vouches for it), then taken from the cache or read and hashed.
 */
#include "pkg_run.h"

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

#include "attest/codec.h"
#include "attest/err.h"
#include "deb.h"
#include "initrd.h"
#include "pkg_cache.h"
#include "pkg_src.h"

void pkg_jobs_init(struct pkg_jobs *js)
{
	memset(js, 0, sizeof(*js));
}

void pkg_jobs_release(struct pkg_jobs *js)
{
	size_t i;

	for (i = 0; i < js->n; i++) {
		free(js->j[i].file);
		free(js->j[i].label);
		free(js->j[i].pkg);
		pkg_list_release(&js->j[i].list);
	}
	free(js->j);
	pkg_jobs_init(js);
}

int pkg_jobs_add(struct pkg_jobs *js, const char *file, const char *label,
		 enum pkg_type type, const uint8_t *sha256, uint64_t size)
{
	struct pkg_job *j;

	if (js->n == js->cap) {
		size_t nc = js->cap ? js->cap * 2 : 64;
		struct pkg_job *nj = realloc(js->j, nc * sizeof(*nj));

		if (!nj)
			return ATT_E_NOMEM;
		js->j = nj;
		js->cap = nc;
	}
	j = &js->j[js->n];
	memset(j, 0, sizeof(*j));
	j->file = strdup(file);
	j->label = strdup(label ? label : file);
	if (!j->file || !j->label) {
		free(j->file);
		free(j->label);
		return ATT_E_NOMEM;
	}
	j->type = type;
	if (sha256) {
		j->want_sha256 = 1;
		memcpy(j->sha256, sha256, 32);
		j->size = size;
	}
	pkg_list_init(&j->list, type == PKG_TYPE_INITRD);
	atomic_init(&j->finished, 0);
	js->n++;
	return ATT_OK;
}

struct run {
	struct pkg_jobs *js;
	const struct pkg_run_opts *o;
	atomic_size_t next, done, cached, hashed;
	atomic_uint_fast64_t bytes;
	atomic_int stop;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* a job finished */
};

/* The SHA-256 and size of a whole file. */
static int file_sha256(int fd, struct att_md *md, uint8_t *buf, size_t cap,
		       uint8_t *out, uint64_t *size)
{
	ssize_t r;

	*size = 0;
	att_md_init(md);
	while ((r = read(fd, buf, cap)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ATT_E_IO;
		att_md_update(md, buf, (size_t)r);
		*size += (uint64_t)r;
	}
	att_md_final(md, out);
	return lseek(fd, 0, SEEK_SET) == 0 ? ATT_OK : ATT_E_IO;
}

static void run_job(struct run *r, struct pkg_job *j, struct att_md *md,
		    struct att_md *sha, uint8_t *buf, size_t cap)
{
	struct pkg_src s;
	struct stat st;
	uint8_t d[32];
	uint64_t size = 0;
	int fd, keyed = 0;

	/* The index's SHA-256 names the cache entry: an unchanged .deb is
	 * not even read (the entry was made from bytes with that hash). */
	if (j->want_sha256 && r->o->cache &&
	    !pkg_cache_load(r->o->cache, r->o->hash, j->type, j->sha256,
			    &j->list)) {
		j->cached = 1;
		atomic_fetch_add(&r->cached, 1);
		return;
	}
	fd = open(j->file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		j->rc = ATT_E_IO;
		snprintf(j->err, sizeof(j->err), "%s", strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		j->rc = ATT_E_IO;
		snprintf(j->err, sizeof(j->err), "not a regular file");
		goto out;
	}
	if (j->want_sha256 || r->o->cache) {
		if (file_sha256(fd, sha, buf, cap, d, &size)) {
			j->rc = ATT_E_IO;
			snprintf(j->err, sizeof(j->err), "read failed: %s",
				 strerror(errno));
			goto out;
		}
		if (j->want_sha256 &&
		    (memcmp(d, j->sha256, 32) || size != j->size)) {
			char want[65], got[65];

			att_hex_encode(j->sha256, 32, want);
			att_hex_encode(d, 32, got);
			j->rc = ATT_E_VERIFY;
			snprintf(j->err, sizeof(j->err),
				 "not the file the index names: SHA-256 %s, "
				 "%llu bytes; the index says %s, %llu bytes",
				 got, (unsigned long long)size, want,
				 (unsigned long long)j->size);
			goto out;
		}
		keyed = 1;
	}
	if (keyed && r->o->cache &&
	    !pkg_cache_load(r->o->cache, r->o->hash, j->type, d, &j->list)) {
		j->cached = 1;
		atomic_fetch_add(&r->cached, 1);
		goto out;
	}
	j->rc = pkg_src_init(&s, fd);
	if (!j->rc) {
		/* the bytes parsed must be the bytes checked: hash them
		 * again as they are read */
		if (keyed) {
			att_md_init(sha);
			s.tap = sha;
		}
		if (j->type == PKG_TYPE_DEB)
			j->rc = deb_read(&s, &j->list, md, j->err,
					 sizeof(j->err));
		else
			j->rc = initrd_read(&s, &j->list, md, j->err,
					    sizeof(j->err));
		atomic_fetch_add(&r->bytes, s.off);
		if (!j->rc && keyed) {
			uint8_t again[32];

			j->rc = pkg_src_drain(&s);
			att_md_final(sha, again);
			if (!j->rc && memcmp(again, d, 32)) {
				j->rc = ATT_E_VERIFY;
				snprintf(j->err, sizeof(j->err),
					 "changed while being read");
			}
		}
		pkg_src_release(&s);
	}
	atomic_fetch_add(&r->hashed, 1);
	if (!j->rc && keyed && r->o->cache &&
	    pkg_cache_store(r->o->cache, r->o->hash, j->type, d, &j->list))
		fprintf(stderr,
			"attest-whitelist: %s: cannot write the cache "
			"entry (%s)\n",
			j->label, strerror(errno));
out:
	close(fd);
}

static void *worker(void *arg)
{
	struct run *r = arg;
	struct att_md *md = NULL, *sha = NULL;
	size_t cap = 256 * 1024;
	uint8_t *buf = malloc(cap);

	if (!buf || att_md_new(r->o->hash, &md) ||
	    att_md_new(ATT_HASH_SHA256, &sha)) {
		free(buf);
		att_md_free(md);
		return (void *)1;
	}
	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);

		if (i >= r->js->n)
			break;
		if (!atomic_load(&r->stop))
			run_job(r, &r->js->j[i], md, sha, buf, cap);
		atomic_fetch_add(&r->done, 1);
		pthread_mutex_lock(&r->mu);
		atomic_store(&r->js->j[i].finished, 1);
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
	att_md_free(md);
	att_md_free(sha);
	free(buf);
	return NULL;
}

static void progress(struct run *r, double t, int final)
{
	double mib = (double)atomic_load(&r->bytes) / 1048576.0;

	fprintf(stderr,
		"\r  %zu/%zu archives (%zu from the cache), %.1f MiB read, "
		"%.1f MiB/s   %s",
		atomic_load(&r->done), r->js->n, atomic_load(&r->cached), mib,
		t > 0 ? mib / t : 0.0, final ? "\n" : "");
}

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Waits up to 200 ms for job i to finish. */
static void wait_for(struct run *r, size_t i)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 200 * 1000 * 1000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&r->mu);
	if (!atomic_load(&r->js->j[i].finished))
		pthread_cond_timedwait(&r->cv, &r->mu, &dl);
	pthread_mutex_unlock(&r->mu);
}

int pkg_run(struct pkg_jobs *js, const struct pkg_run_opts *o,
	    struct pkg_run_stats *st)
{
	struct run r = {.js = js, .o = o};
	pthread_t tid[64];
	unsigned int i, started = 0, n = o->threads;
	struct timespec t0;
	int rc = ATT_OK;
	size_t next = 0;

	memset(st, 0, sizeof(*st));
	if (n < 1)
		n = 1;
	if (n > 64)
		n = 64;
	if (n > js->n)
		n = js->n ? (unsigned int)js->n : 1;
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (pthread_create(&tid[i], NULL, worker, &r))
			break;
		started++;
	}
	if (!started) {
		rc = ATT_E_NOMEM;
		goto out;
	}
	while (next < js->n) {
		struct pkg_job *j = &js->j[next];

		if (!atomic_load(&j->finished)) {
			wait_for(&r, next);
			if (o->progress)
				progress(&r, since(&t0), 0);
			continue;
		}
		st->file_bytes += j->list.bytes;
		if (o->sink && !rc && !atomic_load(&r.stop)) {
			rc = o->sink(j, o->ctx);
			if (rc)
				atomic_store(&r.stop, 1);
		}
		pkg_list_release(&j->list);
		next++;
	}
	for (i = 0; i < started; i++) {
		void *ret;

		pthread_join(tid[i], &ret);
		if (ret && !rc)
			rc = ATT_E_NOMEM;
	}
	if (o->progress)
		progress(&r, since(&t0), 1);
	st->jobs = js->n;
	st->cached = atomic_load(&r.cached);
	st->hashed_archives = atomic_load(&r.hashed);
	st->archive_bytes = atomic_load(&r.bytes);
out:
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
	return rc;
}
