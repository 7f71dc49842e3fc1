// SPDX-License-Identifier: Apache-2.0
/*
 * http.c - HTTPS to the verifier with libcurl.
 */
#include "attest/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/rand.h>

#include "attest/err.h"
#include "attest/log.h"

/*
 * The CA, certificate and key are read into memory when set, so that the
 * agent can drop its privileges afterwards and still present them.
 */
struct att_http {
	char **urls;
	size_t nurls, current;
	struct att_buf ca, cert, key;
	long timeout;
	CURL *curl;
};

int att_http_new(const char *const *urls, size_t nurls, const char *ca,
		 struct att_http **out)
{
	struct att_http *h;
	size_t i;

	if (!nurls || !ca)
		return ATT_E_INVAL;
	for (i = 0; i < nurls; i++)
		if (strncmp(urls[i], "https://", 8))
			return ATT_E_INVAL; /* never plaintext */
	h = calloc(1, sizeof(*h));
	if (!h)
		return ATT_E_NOMEM;
	h->urls = calloc(nurls, sizeof(*h->urls));
	att_buf_init(&h->ca, 1u << 20);
	att_buf_init(&h->cert, 1u << 20);
	att_buf_init(&h->key, 1u << 20);
	h->curl = curl_easy_init();
	h->timeout = 30;
	if (!h->urls || !h->curl) {
		att_http_free(h);
		return ATT_E_NOMEM;
	}
	if (att_buf_read_file(&h->ca, ca, 1u << 20)) {
		att_err("cannot read the verifier CA %s", ca);
		att_http_free(h);
		return ATT_E_IO;
	}
	for (i = 0; i < nurls; i++) {
		size_t n = strlen(urls[i]);

		h->urls[i] = strdup(urls[i]);
		if (!h->urls[i]) {
			h->nurls = i;
			att_http_free(h);
			return ATT_E_NOMEM;
		}
		/* base URLs without a trailing slash */
		while (n > 8 && h->urls[i][n - 1] == '/')
			h->urls[i][--n] = '\0';
	}
	h->nurls = nurls;
	*out = h;
	return ATT_OK;
}

void att_http_free(struct att_http *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->nurls; i++)
		free(h->urls[i]);
	free(h->urls);
	att_buf_release(&h->ca);
	att_buf_release(&h->cert);
	att_buf_wipe_release(&h->key);
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h);
}

int att_http_set_client_cert(struct att_http *h, const char *cert,
			     const char *key)
{
	att_buf_release(&h->cert);
	att_buf_wipe_release(&h->key);
	if (!cert || !key)
		return ATT_OK;
	if (att_buf_read_file(&h->cert, cert, 1u << 20) ||
	    att_buf_read_file(&h->key, key, 1u << 20)) {
		att_err("cannot read the client certificate %s or key %s", cert,
			key);
		att_buf_release(&h->cert);
		att_buf_wipe_release(&h->key);
		return ATT_E_IO;
	}
	return ATT_OK;
}

void att_http_set_timeout(struct att_http *h, long seconds)
{
	h->timeout = seconds > 0 ? seconds : 30;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct att_buf *b = arg;

	if (att_buf_append(b, p, size * n))
		return 0; /* over the cap: curl reports a write error */
	return size * n;
}

void att_http_resp_release(struct att_http_resp *r)
{
	att_buf_release(&r->body);
	r->status = 0;
	r->url = NULL;
}

static int one_try(struct att_http *h, size_t which, const char *method,
		   const char *path, const void *body, size_t body_len,
		   struct att_http_resp *resp, CURLcode *cc)
{
	struct curl_slist *hdr = NULL;
	char *url;
	size_t n = strlen(h->urls[which]) + strlen(path) + 1;
	CURL *c = h->curl;

	url = malloc(n);
	if (!url)
		return ATT_E_NOMEM;
	snprintf(url, n, "%s%s", h->urls[which], path);
	curl_easy_reset(c);
	resp->body.len = 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	{
		struct curl_blob ca = {h->ca.data, h->ca.len, CURL_BLOB_NOCOPY};

		/* The pinned CA is the only trust anchor. */
		curl_easy_setopt(c, CURLOPT_CAINFO, NULL);
		curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
		curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	}
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(c, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (h->cert.len) {
		struct curl_blob cb = {h->cert.data, h->cert.len,
				       CURL_BLOB_NOCOPY};
		struct curl_blob kb = {h->key.data, h->key.len,
				       CURL_BLOB_NOCOPY};

		curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cb);
		curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
		curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &kb);
		curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
	}
	curl_easy_setopt(c, CURLOPT_TIMEOUT, h->timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 h->timeout < 10 ? h->timeout : 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &resp->body);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)body_len);
	} else if (!strcmp(method, "GET")) {
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	}
	hdr = curl_slist_append(hdr, "Accept: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	*cc = curl_easy_perform(c);
	resp->status = 0;
	if (*cc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	curl_slist_free_all(hdr);
	free(url);
	return ATT_OK;
}

int att_http_request(struct att_http *h, const char *method, const char *path,
		     const void *body, size_t body_len,
		     struct att_http_resp *resp)
{
	size_t i;
	int rc;

	if (!resp->body.max)
		att_buf_init(&resp->body, ATT_HTTP_MAX_BODY);
	for (i = 0; i < h->nurls; i++) {
		size_t which = (h->current + i) % h->nurls;
		CURLcode cc;

		rc = one_try(h, which, method, path, body, body_len, resp, &cc);
		if (rc)
			return rc;
		if (cc == CURLE_OK && resp->status != 502 &&
		    resp->status != 503 && resp->status != 504) {
			h->current = which;
			resp->url = h->urls[which];
			return ATT_OK;
		}
		if (cc != CURLE_OK)
			att_warn("verifier %s: %s", h->urls[which],
				 curl_easy_strerror(cc));
		else
			att_warn("verifier %s: HTTP %ld, trying the next",
				 h->urls[which], resp->status);
	}
	if (resp->status)
		return ATT_OK; /* every replica busy: report the last answer */
	return ATT_E_NET;
}

void att_backoff_init(struct att_backoff *b, unsigned int base_ms,
		      unsigned int max_ms)
{
	b->attempt = 0;
	b->base_ms = base_ms ? base_ms : 1000;
	b->max_ms = max_ms >= b->base_ms ? max_ms : b->base_ms;
}

unsigned int att_backoff_next(struct att_backoff *b)
{
	uint64_t cap = b->base_ms;
	uint32_t r = 0;

	if (b->attempt < 31)
		cap <<= b->attempt;
	else
		cap = b->max_ms;
	if (cap > b->max_ms)
		cap = b->max_ms;
	if (b->attempt < 64)
		b->attempt++;
	if (RAND_bytes((unsigned char *)&r, sizeof(r)) != 1)
		r = (uint32_t)rand();
	return (unsigned int)(r % (cap + 1));
}

void att_backoff_reset(struct att_backoff *b)
{
	b->attempt = 0;
}
