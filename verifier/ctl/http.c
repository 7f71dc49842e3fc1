// SPDX-License-Identifier: Apache-2.0
/*
 * http.c - attestctl's HTTPS requests (libcurl): the verifier's CA pinned,
 * the admin certificate presented, TLS 1.2+, answers capped.
 */
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "attest/err.h"
#include "attest/json.h"
#include "ctl.h"

#define CTL_MAX_ANSWER (256u << 20)

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct att_buf *b = arg;

	if (att_buf_append(b, p, size * n))
		return 0;
	return size * n;
}

int ctl_request(const struct ctl *c, const char *method, const char *path,
		const char *body, long *status, struct att_buf *out)
{
	struct curl_slist *hdr = NULL;
	char url[2048], err[CURL_ERROR_SIZE] = "";
	CURLcode rc;
	CURL *h;

	*status = 0;
	att_buf_release(out);
	att_buf_init(out, CTL_MAX_ANSWER);
	if ((size_t)snprintf(url, sizeof(url), "%s%s", c->url, path) >=
	    sizeof(url))
		return CTL_USAGE;
	h = curl_easy_init();
	if (!h)
		return CTL_CONNECT;
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->cacert);
	if (c->cert)
		curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert);
	if (c->key)
		curl_easy_setopt(h, CURLOPT_SSLKEY, c->key);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(body));
	}
	rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CURLE_OK || att_buf_cstr(out)) {
		fprintf(stderr, "attestctl: %s: %s\n", url,
			err[0] ? err : curl_easy_strerror(rc));
		return CTL_CONNECT;
	}
	return CTL_OK;
}

int ctl_status_exit(long status, const struct att_buf *a)
{
	struct json_object *o = NULL, *m = NULL, *code = NULL;
	char perr[64];

	if (status >= 200 && status < 300)
		return CTL_OK;
	if (a->len && !att_json_parse((const char *)a->data, a->len, 8, &o,
				      perr, sizeof(perr))) {
		json_object_object_get_ex(o, "message", &m);
		json_object_object_get_ex(o, "code", &code);
	}
	fprintf(stderr, "attestctl: HTTP %ld %s: %s\n", status,
		code ? json_object_get_string(code) : "",
		m ? json_object_get_string(m) : "(no message)");
	json_object_put(o);
	if (status == 404)
		return CTL_NOT_FOUND;
	if (status >= 400 && status < 500)
		return CTL_REFUSED;
	return CTL_SERVER;
}
