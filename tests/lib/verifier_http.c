// SPDX-License-Identifier: Apache-2.0
/*
 * verifier_http.c - HTTPS test client (see verifier_http.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "attest/err.h"
#include "verifier_http.h"

#define VH_MAX_RESP (64u << 20)

void att_vh_resp_release(struct att_vh_resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static int tcp_connect(unsigned int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static SSL_CTX *make_ctx(const char *dir, const char *who)
{
	char ca[512], cert[512], key[512];
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx)
		return NULL;
	snprintf(ca, sizeof(ca), "%s/server-ca.pem", dir);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
		goto fail;
	if (who) {
		snprintf(cert, sizeof(cert), "%s/%s.pem", dir, who);
		snprintf(key, sizeof(key), "%s/%s.key", dir, who);
		if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
		    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) !=
			    1)
			goto fail;
	}
	return ctx;
fail:
	fprintf(stderr, "verifier_http: cannot load TLS files from %s\n", dir);
	ERR_print_errors_fp(stderr);
	SSL_CTX_free(ctx);
	return NULL;
}

static int parse_resp(char *buf, size_t n, struct att_vh_resp *out)
{
	char *hdr_end, *cl;
	int status;
	size_t blen;

	buf[n] = '\0';
	if (n < 12 || strncmp(buf, "HTTP/1.", 7) ||
	    sscanf(buf + 9, "%3d", &status) != 1)
		return ATT_E_FORMAT;
	hdr_end = strstr(buf, "\r\n\r\n");
	if (!hdr_end)
		return ATT_E_FORMAT;
	*hdr_end = '\0';
	blen = n - (size_t)(hdr_end + 4 - buf);
	cl = strcasestr(buf, "\r\nContent-Length:");
	if (cl) {
		unsigned long v = strtoul(cl + 17, NULL, 10);

		/*
		 * Shorter than announced: the server died while sending it
		 * (test_faults kills it at random points). Not an answer.
		 */
		if (v > blen)
			return ATT_E_FORMAT;
		blen = v;
	}
	out->body = malloc(blen + 1);
	if (!out->body)
		return ATT_E_NOMEM;
	memcpy(out->body, hdr_end + 4, blen);
	out->body[blen] = '\0';
	out->len = blen;
	out->status = status;
	return 0;
}

static int exchange(unsigned int port, const char *dir, const char *who,
		    const void *req, size_t reqlen, const void *body,
		    size_t blen, struct att_vh_resp *out)
{
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	char *buf = NULL;
	size_t n = 0, cap = 1 << 16, off;
	int fd, r = 1, rc = ATT_E_NET;

	memset(out, 0, sizeof(*out));
	fd = tcp_connect(port);
	if (fd < 0)
		return ATT_E_NET;
	ctx = make_ctx(dir, who);
	if (!ctx)
		goto out;
	ssl = SSL_new(ctx);
	if (!ssl || SSL_set_fd(ssl, fd) != 1 ||
	    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1") !=
		    1)
		goto out;
	if (SSL_connect(ssl) != 1) {
		ERR_print_errors_fp(stderr);
		goto out;
	}
	for (off = 0; off < reqlen; off += (size_t)r) {
		r = SSL_write(
			ssl, (const char *)req + off,
			(int)(reqlen - off > 65536 ? 65536 : reqlen - off));
		if (r <= 0)
			break;
	}
	/* The server may answer (413) and close before the body is in. */
	for (off = 0; off < blen && r > 0; off += (size_t)r) {
		r = SSL_write(ssl, (const char *)body + off,
			      (int)(blen - off > 65536 ? 65536 : blen - off));
		if (r <= 0)
			break;
	}
	buf = malloc(cap + 1);
	if (!buf)
		goto out;
	for (;;) {
		if (n == cap) {
			char *nb;

			if (cap >= VH_MAX_RESP)
				goto out;
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				goto out;
			buf = nb;
			cap *= 2;
		}
		r = SSL_read(ssl, buf + n, (int)(cap - n));
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	rc = parse_resp(buf, n, out);
out:
	ERR_clear_error();
	free(buf);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return rc;
}

int att_vh_request(unsigned int port, const char *pki_dir, const char *who,
		   const char *method, const char *path, const char *body,
		   size_t len, struct att_vh_resp *out)
{
	char hdr[1024];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		     "Connection: close\r\n%s%s",
		     method, path, port,
		     body ? "Content-Type: application/json\r\n" : "",
		     body ? "" : "\r\n");
	if (n < 0 || (size_t)n >= sizeof(hdr) - 64)
		return ATT_E_INVAL;
	if (body)
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n,
			      "Content-Length: %zu\r\n\r\n", len);
	return exchange(port, pki_dir, who, hdr, (size_t)n, body,
			body ? len : 0, out);
}

long long att_vh_metric(unsigned int port, const char *pki_dir, const char *fmt,
			...)
{
	struct att_vh_resp r;
	char series[256];
	const char *p;
	long long v = -1;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(series, sizeof(series), fmt, ap);
	va_end(ap);
	n = strlen(series);
	if (att_vh_request(port, pki_dir, "admin", "GET", "/metrics", NULL, 0,
			   &r))
		return -1;
	for (p = r.status == 200 ? r.body : NULL; p && (p = strstr(p, series));
	     p += n) {
		/* the whole series name: at a line start, then a space */
		if ((p == r.body || p[-1] == '\n') && p[n] == ' ') {
			v = strtoll(p + n + 1, NULL, 10);
			break;
		}
	}
	att_vh_resp_release(&r);
	if (v < 0)
		fprintf(stderr, "/metrics: no series %s\n", series);
	return v;
}

int att_vh_raw(unsigned int port, const char *pki_dir, const char *who,
	       const void *raw, size_t n, struct att_vh_resp *out)
{
	return exchange(port, pki_dir, who, raw, n, NULL, 0, out);
}

static const char schema_py[] =
	"import json, sys, glob, os\n"
	"from referencing import Registry, Resource\n"
	"from jsonschema import Draft202012Validator\n"
	"d = sys.argv[1]\n"
	"reg = Registry()\n"
	"for f in glob.glob(d + '/*.json'):\n"
	"    s = json.load(open(f))\n"
	"    reg = reg.with_resource(s['$id'], Resource.from_contents(s))\n"
	"s = json.load(open(os.path.join(d, sys.argv[2])))\n"
	"v = Draft202012Validator(s, registry=reg)\n"
	"errs = list(v.iter_errors(json.load(open(sys.argv[3]))))\n"
	"for e in errs:\n"
	"    print(sys.argv[2], list(e.absolute_path), e.message[:300],\n"
	"          file=sys.stderr)\n"
	"sys.exit(1 if errs else 0)\n";

int att_vh_schema(const char *schema, const char *json)
{
	const char *src = getenv("ATT_SRC");
	char dir[512], tmp[] = "/tmp/att-schema-XXXXXX";
	int fd, st;
	size_t n = strlen(json);
	pid_t pid;

	if (!src) {
		fprintf(stderr, "att_vh_schema: ATT_SRC is not set\n");
		return ATT_E_INVAL;
	}
	snprintf(dir, sizeof(dir), "%s/schemas", src);
	fd = mkstemp(tmp);
	if (fd < 0)
		return ATT_E_IO;
	if (write(fd, json, n) != (ssize_t)n) {
		close(fd);
		unlink(tmp);
		return ATT_E_IO;
	}
	close(fd);
	pid = fork();
	if (pid == 0) {
		execlp("python3", "python3", "-c", schema_py, dir, schema, tmp,
		       (char *)NULL);
		_exit(127);
	}
	st = -1;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	unlink(tmp);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "schema %s: invalid document: %.400s\n", schema,
			json);
		return ATT_E_FORMAT;
	}
	return 0;
}

static int count_segs(const char *p)
{
	int n = 0;

	for (; *p; p++)
		if (*p == '/')
			n++;
	return n;
}

void att_vh_schemas_for(const char *method, const char *path, int status,
			const char **rq, const char **rs)
{
	char p[256];
	int get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
	int put = !strcmp(method, "PUT"), n;

	snprintf(p, sizeof(p), "%s", path);
	p[strcspn(p, "?")] = '\0';
	n = count_segs(p);
	*rq = NULL;
	*rs = NULL;
	if (!strcmp(p, "/healthz")) {
		*rs = "health.schema.json";
	} else if (!strcmp(p, "/v1/whitelists")) {
		*rq = post ? "whitelist-request.schema.json" : NULL;
		*rs = post ? "whitelist-summary.schema.json"
			   : "whitelist-list.schema.json";
	} else if (!strncmp(p, "/v1/whitelists/", 15)) {
		*rq = put ? "whitelist-request.schema.json" : NULL;
		*rs = put   ? "whitelist-summary.schema.json"
		      : get ? "whitelist-get.schema.json"
			    : "deleted.schema.json";
	} else if (!strcmp(p, "/v1/agents")) {
		*rs = "agent-list.schema.json";
	} else if (!strncmp(p, "/v1/agents/", 11) && n == 4 && strlen(p) > 6 &&
		   !strcmp(p + strlen(p) - 6, "/clone")) {
		*rs = "agent-summary.schema.json";
	} else if (!strncmp(p, "/v1/agents/", 11) && n == 4) {
		*rq = "assign-request.schema.json";
		*rs = "agent-summary.schema.json";
	} else if (!strncmp(p, "/v1/agents/", 11)) {
		*rs = get ? "agent.schema.json" : "deleted.schema.json";
	} else if (!strcmp(p, "/v1/enrollment/tokens")) {
		*rq = "token-request.schema.json";
		*rs = "token.schema.json";
	} else if (!strcmp(p, "/v1/enroll")) {
		*rq = "enroll-request.schema.json";
		*rs = "enroll-challenge.schema.json";
	} else if (!strcmp(p, "/v1/enroll/activate")) {
		*rq = "activate-request.schema.json";
		*rs = "activate-response.schema.json";
	} else if (!strcmp(p, "/v1/attestation/challenge")) {
		*rq = "challenge-request.schema.json";
		*rs = "challenge.schema.json";
	} else if (!strcmp(p, "/v1/attestation/evidence")) {
		*rq = "evidence.schema.json";
		*rs = "result.schema.json";
	} else if (!strcmp(p, "/v1/check")) {
		*rq = "check-request.schema.json";
		*rs = "check-result.schema.json";
	} else if (!strcmp(p, "/v1/fleet")) {
		*rs = "fleet.schema.json";
	}
	if (status >= 400 && strcmp(p, "/metrics"))
		*rs = "error.schema.json";
	if (status >= 300 || !(post || put))
		*rq = NULL;
}

int att_vh_check_exchange(const char *method, const char *path,
			  const char *body, int status, const char *answer)
{
	const char *rq, *rs;
	int rc = 0;

	att_vh_schemas_for(method, path, status, &rq, &rs);
	if (rq && body && *body && att_vh_schema(rq, body))
		rc = ATT_E_FORMAT;
	if (rs && att_vh_schema(rs, answer))
		rc = ATT_E_FORMAT;
	return rc;
}
