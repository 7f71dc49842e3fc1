// SPDX-License-Identifier: Apache-2.0
/*
 * server.c - libmicrohttpd glue: TLS setup, request bodies, client
 * certificate roles, responses, drain.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "attest/err.h"
#include "attest/log.h"
#include "config.h"
#include "metrics.h"
#include "server.h"

struct ver_server {
	struct ver_ctx *ctx;
	struct MHD_Daemon *d;
	struct att_buf cert, key, trust;
	unsigned int port;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned long inflight;
	/* bytes of request bodies held, at most cfg->max_body_inflight */
	atomic_size_t body_bytes;
};

struct ver_conn_req {
	struct ver_req rq;
	struct ver_server *srv;
	struct timespec start;
	size_t reserved; /* of srv->body_bytes, given back when done */
};

/*
 * A connection's client certificate chain, classified once: parsing and
 * verifying it (ver_auth_classify) costs more than the rest of a small
 * request, and keep-alive connections carry many requests. The leaf is
 * compared byte for byte before the cached answer is used.
 */
struct ver_conn_peer {
	int valid;
	unsigned int n;
	uint8_t *leaf;
	size_t leaf_len;
	struct ver_peer peer;
};

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct ver_conn_peer *cp = *socket_context;

	(void)cls;
	(void)c;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = calloc(1, sizeof(*cp)); /* NULL: no cache */
		return;
	}
	if (cp) {
		free(cp->leaf);
		free(cp);
	}
	*socket_context = NULL;
}

static void classify_peer(struct ver_server *s, struct MHD_Connection *c,
			  struct ver_peer *p)
{
	const union MHD_ConnectionInfo *ci;
	const gnutls_datum_t *certs;
	struct ver_conn_peer *cp = NULL;
	const uint8_t *der[8];
	size_t len[8];
	unsigned int n = 0, i;

	memset(p, 0, sizeof(*p));
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return;
	certs = gnutls_certificate_get_peers((gnutls_session_t)ci->tls_session,
					     &n);
	if (!certs || n == 0 || n > 8)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (ci)
		cp = ci->socket_context;
	if (cp && cp->valid && cp->n == n && cp->leaf_len == certs[0].size &&
	    !memcmp(cp->leaf, certs[0].data, certs[0].size)) {
		*p = cp->peer;
		return;
	}
	for (i = 0; i < n; i++) {
		der[i] = certs[i].data;
		len[i] = certs[i].size;
	}
	ver_auth_classify(s->ctx->auth, der, len, n, p);
	if (!cp)
		return;
	free(cp->leaf);
	cp->valid = 0;
	cp->leaf = malloc(certs[0].size);
	if (!cp->leaf)
		return;
	memcpy(cp->leaf, certs[0].data, certs[0].size);
	cp->leaf_len = certs[0].size;
	cp->n = n;
	cp->peer = *p;
	cp->valid = 1;
}

/* The query's arguments into rq (MHD keeps them until the request ends). */
static enum MHD_Result add_query(void *cls, enum MHD_ValueKind kind,
				 const char *key, const char *value)
{
	struct ver_req *rq = cls;

	(void)kind;
	if (rq->nquery == VER_QUERY_MAX)
		return MHD_NO; /* the rest are not read */
	rq->query[rq->nquery].key = key;
	rq->query[rq->nquery].value = value;
	rq->nquery++;
	return MHD_YES;
}

static enum MHD_Result send_resp(struct MHD_Connection *c, struct ver_resp *rs)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned int i;

	r = MHD_create_response_from_buffer(rs->body.len, rs->body.data,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				rs->ctype ? rs->ctype : "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	for (i = 0; rs->headers && rs->headers[i] && rs->headers[i + 1]; i += 2)
		MHD_add_response_header(r, rs->headers[i], rs->headers[i + 1]);
	ret = MHD_queue_response(c, rs->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Takes n more bytes of the body budget; 0 when there is no room. */
static int budget_take(struct ver_conn_req *cr, size_t n)
{
	struct ver_server *s = cr->srv;
	size_t cap = s->ctx->cfg->max_body_inflight;
	size_t cur = atomic_load(&s->body_bytes);

	do {
		if (n > cap || cur > cap - n)
			return 0;
	} while (!atomic_compare_exchange_weak(&s->body_bytes, &cur, cur + n));
	cr->reserved += n;
	return 1;
}

static void budget_put(struct ver_conn_req *cr)
{
	atomic_fetch_sub(&cr->srv->body_bytes, cr->reserved);
	cr->reserved = 0;
}

/* 503 busy with Retry-After: the body budget or memory is short. */
static void busy(struct ver_resp *rs, const char *why)
{
	static const char *const retry[] = {"Retry-After", "5", NULL};

	ver_error(rs, 503, "busy", "%s", why);
	rs->headers = retry;
}

/*
 * A request's headers are in: its caller's role is checked against the
 * route's gate, and its declared length against the route's cap and the
 * budget of bodies in flight, before a byte of the body is read. 0: read
 * the body; else an answer is in rs, sent at once (MHD then closes the
 * connection without reading the body).
 */
static int admit(struct ver_conn_req *cr, struct MHD_Connection *c,
		 struct ver_resp *rs)
{
	const struct ver_config *cfg = cr->srv->ctx->cfg;
	const char *cl;
	uint64_t len = 0;
	size_t cap;

	classify_peer(cr->srv, c, &cr->rq.peer);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_query, &cr->rq);
	ver_route_match(&cr->rq);
	if (ver_route_gate(&cr->rq, rs))
		return 1;
	cap = cr->rq.body_class == VER_BODY_FULL ? cfg->max_body
						 : cfg->max_anon_body;
	att_buf_init(&cr->rq.body, cap);
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					 MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && ver_parse_u64(cl, 0, UINT64_MAX, &len) == 0 && len > cap) {
		ver_error(rs, 413, "body_too_large",
			  "the request body is over %zu bytes", cap);
		return 1;
	}
	if (len && !budget_take(cr, (size_t)len)) {
		busy(rs, "too many request bodies in flight; retry later");
		return 1;
	}
	/* One allocation of the declared size (no doubling as it grows). */
	if (len && att_buf_reserve(&cr->rq.body, (size_t)len)) {
		busy(rs, "out of memory; retry later");
		return 1;
	}
	return 0;
}

/* Body bytes as they come, within the route's cap and the budget. */
static void take_upload(struct ver_conn_req *cr, const char *p, size_t n)
{
	struct ver_req *rq = &cr->rq;

	if (rq->too_big || rq->over_budget)
		return;
	/* beyond a declared length, or without one: from the budget */
	if (rq->body.len + n > cr->reserved && !budget_take(cr, n)) {
		rq->over_budget = 1;
		att_buf_release(&rq->body);
		return;
	}
	if (att_buf_append(&rq->body, p, n)) {
		rq->too_big = 1;
		att_buf_release(&rq->body);
	}
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct ver_server *s = cls;
	struct ver_conn_req *cr = *con_cls;
	struct ver_resp rs;
	enum MHD_Result ret;

	(void)version;
	if (!cr) {
		cr = calloc(1, sizeof(*cr));
		if (!cr)
			return MHD_NO;
		cr->srv = s;
		cr->rq.ctx = s->ctx;
		cr->rq.method = method;
		cr->rq.url = url;
		att_buf_init(&cr->rq.body, 0);
		clock_gettime(CLOCK_MONOTONIC, &cr->start);
		pthread_mutex_lock(&s->lock);
		s->inflight++;
		pthread_mutex_unlock(&s->lock);
		*con_cls = cr;
		memset(&rs, 0, sizeof(rs));
		att_buf_init(&rs.body, 0);
		if (!admit(cr, c, &rs)) {
			att_buf_release(&rs.body);
			return MHD_YES;
		}
		/* refused before its body: answered now, the body unread */
		att_debug("%s %s -> %u before its body", method, url,
			  rs.status);
		ver_metrics_request(s->ctx->metrics, rs.status);
		ret = send_resp(c, &rs);
		att_buf_release(&rs.body);
		return ret;
	}
	if (*upload_size) {
		take_upload(cr, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	memset(&rs, 0, sizeof(rs));
	att_buf_init(&rs.body, 0);
	if (cr->rq.over_budget) {
		busy(&rs, "too many request bodies in flight; retry later");
	} else if (cr->rq.too_big) {
		ver_error(&rs, 413, "body_too_large",
			  "the request body is over %zu bytes",
			  cr->rq.body.max);
	} else {
		ver_route(&cr->rq, &rs);
	}
	if (!rs.status)
		ver_error(&rs, 500, "internal", "no answer was produced");
	att_debug("%s %s -> %u (%s)", method, url, rs.status,
		  cr->rq.peer.role == VER_ROLE_ADMIN   ? "admin"
		  : cr->rq.peer.role == VER_ROLE_AGENT ? cr->rq.peer.id
						       : "anonymous");
	ver_metrics_request(s->ctx->metrics, rs.status);
	ret = send_resp(c, &rs);
	att_buf_release(&rs.body);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct ver_server *s = cls;
	struct ver_conn_req *cr = *con_cls;

	(void)c;
	(void)toe;
	if (!cr)
		return;
	att_buf_release(&cr->rq.body);
	budget_put(cr);
	free(cr);
	*con_cls = NULL;
	pthread_mutex_lock(&s->lock);
	if (--s->inflight == 0)
		pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	att_debug("http: %s", msg);
}

static int read_pem(struct att_buf *b, const char *path)
{
	int rc;

	att_buf_init(b, 1 << 20);
	rc = att_buf_read_file(b, path, 1 << 20);
	if (!rc)
		rc = att_buf_cstr(b);
	if (rc)
		att_err("cannot read %s: %s", path, att_strerror(rc));
	return rc;
}

static void server_free(struct ver_server *s)
{
	att_buf_wipe_release(&s->key);
	att_buf_release(&s->cert);
	att_buf_release(&s->trust);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->idle);
	free(s);
}

/* A server of ctx with no daemon yet (server_free undoes it). */
static struct ver_server *server_new(struct ver_ctx *ctx)
{
	struct ver_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->idle, NULL);
	att_buf_init(&s->cert, 0);
	att_buf_init(&s->key, 0);
	att_buf_init(&s->trust, 0);
	return s;
}

int ver_server_start(struct ver_ctx *ctx, struct ver_server **out)
{
	const struct ver_config *cfg = ctx->cfg;
	const union MHD_DaemonInfo *di;
	struct ver_server *s;
	struct att_buf agent_ca;
	struct sockaddr_in sa;
	int rc;

	*out = NULL;
	s = server_new(ctx);
	if (!s)
		return ATT_E_NOMEM;
	rc = read_pem(&s->cert, cfg->tls_cert);
	if (!rc)
		rc = read_pem(&s->key, cfg->tls_key);
	if (!rc)
		rc = read_pem(&s->trust, cfg->admin_ca);
	if (!rc) {
		rc = read_pem(&agent_ca, cfg->agent_ca);
		if (!rc)
			rc = att_buf_append_u8(&s->trust, '\n');
		if (!rc)
			rc = att_buf_append(&s->trust, agent_ca.data,
					    agent_ca.len);
		if (!rc)
			rc = att_buf_cstr(&s->trust);
		att_buf_release(&agent_ca);
	}
	if (rc)
		goto fail;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)cfg->listen_port);
	if (inet_pton(AF_INET, cfg->listen_host, &sa.sin_addr) != 1) {
		att_err("listen: '%s' is not an IPv4 address",
			cfg->listen_host);
		rc = ATT_E_INVAL;
		goto fail;
	}
	s->d = MHD_start_daemon(
		MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			MHD_USE_ITC | MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &sa,
		MHD_OPTION_HTTPS_MEM_CERT, (const char *)s->cert.data,
		MHD_OPTION_HTTPS_MEM_KEY, (const char *)s->key.data,
		MHD_OPTION_HTTPS_MEM_TRUST, (const char *)s->trust.data,
		MHD_OPTION_HTTPS_PRIORITIES,
		"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
		MHD_OPTION_THREAD_POOL_SIZE, cfg->threads,
		MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, cfg->max_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, cfg->request_timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (!s->d) {
		att_err("cannot start the HTTPS server on %s:%u: %s",
			cfg->listen_host, cfg->listen_port, strerror(errno));
		rc = ATT_E_NET;
		goto fail;
	}
	di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di ? di->port : cfg->listen_port;
	*out = s;
	return 0;
fail:
	server_free(s);
	return rc;
}

#ifdef ATT_FUZZING
int ver_server_start_plain(struct ver_ctx *ctx, struct ver_server **out)
{
	const struct ver_config *cfg = ctx->cfg;
	struct ver_server *s;

	*out = NULL;
	s = server_new(ctx);
	if (!s)
		return ATT_E_NOMEM;
	/*
	 * poll(), not epoll: edge-triggered, libmicrohttpd misses an end of
	 * input that arrives with the data (a half-closed connection waits
	 * for its timeout), which would make every such input take seconds.
	 * The request handling is the same either way.
	 */
	s->d = MHD_start_daemon(
		MHD_USE_NO_LISTEN_SOCKET | MHD_USE_INTERNAL_POLLING_THREAD |
			MHD_USE_POLL | MHD_USE_ITC,
		0, NULL, NULL, on_request, s, MHD_OPTION_CONNECTION_LIMIT,
		cfg->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
		cfg->request_timeout, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)(16 * 1024), MHD_OPTION_NOTIFY_COMPLETED, on_completed,
		s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
		MHD_OPTION_END);
	if (!s->d) {
		server_free(s);
		return ATT_E_NET;
	}
	*out = s;
	return 0;
}

int ver_server_add_fd(struct ver_server *s, int fd)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return MHD_add_connection(s->d, fd, (const struct sockaddr *)&sa,
				  sizeof(sa)) == MHD_YES
		       ? 0
		       : ATT_E_NET;
}
#endif

unsigned int ver_server_port(const struct ver_server *s)
{
	return s->port;
}

void ver_server_drain_stop(struct ver_server *s, unsigned int timeout)
{
	struct timespec until;
	MHD_socket fd;

	fd = MHD_quiesce_daemon(s->d);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout;
	pthread_mutex_lock(&s->lock);
	while (s->inflight > 0)
		if (pthread_cond_timedwait(&s->idle, &s->lock, &until) ==
		    ETIMEDOUT)
			break;
	if (s->inflight)
		att_warn("drain: %lu requests still running, stopping anyway",
			 s->inflight);
	pthread_mutex_unlock(&s->lock);
	MHD_stop_daemon(s->d);
	server_free(s);
}
