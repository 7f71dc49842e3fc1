// SPDX-License-Identifier: Apache-2.0
/*
 * wlload.c - att-bench-wlload FILE [N]: times att_wl_load_json() on FILE
 * in-process (the file already in memory), N times, and prints the best
 * and the median wall and CPU time (CPU time is what a busy machine
 * distorts least), so that process start-up is not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "attest/buf.h"
#include "attest/err.h"
#include "attest/whitelist.h"

static double now(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct att_buf b;
	double t[101], c[101];
	char err[300];
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 11;
	size_t paths = 0;
	long i;

	if (argc < 2 || n < 1 || n > 101) {
		fprintf(stderr, "usage: att-bench-wlload FILE [N<=101]\n");
		return 2;
	}
	att_buf_init(&b, 0);
	if (att_buf_read_file(&b, argv[1], 1u << 30)) {
		fprintf(stderr, "att-bench-wlload: cannot read %s\n", argv[1]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct att_wl *wl = NULL;
		double t0 = now(CLOCK_MONOTONIC);
		double c0 = now(CLOCK_PROCESS_CPUTIME_ID);

		if (att_wl_load_json((const char *)b.data, b.len, NULL, &wl,
				     err, sizeof(err))) {
			fprintf(stderr, "att-bench-wlload: %s\n", err);
			return 2;
		}
		t[i] = now(CLOCK_MONOTONIC) - t0;
		c[i] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		paths = att_wl_path_count(wl);
		att_wl_free(wl);
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp);
	qsort(c, (size_t)n, sizeof(c[0]), cmp);
	printf("%zu paths, %zu bytes: wall best %.4f s, median %.4f s; CPU "
	       "best %.4f s, median %.4f s (%ld runs)\n",
	       paths, b.len, t[0], t[n / 2], c[0], c[n / 2], n);
	att_buf_release(&b);
	return 0;
}
