/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pg_cluster.h - a private PostgreSQL server for a test: initdb in a new
 * directory owned by the `postgres` user (initdb and pg_ctl refuse root),
 * a free port on 127.0.0.1, trust authentication (throwaway clusters
 * only), stopped and removed at the end. Fails loudly when it cannot.
 */
#ifndef ATTEST_TEST_PG_CLUSTER_H
#define ATTEST_TEST_PG_CLUSTER_H

struct att_pg;

int att_pg_start(struct att_pg **out);
/* "postgresql://postgres@127.0.0.1:PORT/postgres" */
const char *att_pg_url(const struct att_pg *pg);
/*
 * Stops the server (pg_ctl stop -m immediate: as if it crashed, or -m
 * fast) and starts it again on the same port and data directory.
 */
int att_pg_stop(struct att_pg *pg, int immediate);
int att_pg_resume(struct att_pg *pg);
/* Stops the server (pg_ctl stop -m fast); NULL is fine. */
void att_pg_free(struct att_pg *pg);

#endif
