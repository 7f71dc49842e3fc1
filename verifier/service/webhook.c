// SPDX-License-Identifier: Apache-2.0
/*
 * webhook.c - the webhook worker (see webhook.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "attest/err.h"
#include "attest/log.h"
#include "verdict.h"
#include "webhook.h"

#define WH_QUEUE_MAX 1024
#define WH_TRIES     6

struct wh_event {
	struct wh_event *next;
	char *json;
};

struct ver_webhook {
	char *url, *ca;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wh_event *head, *tail;
	unsigned int n;
	int stop;
};

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static int post_once(struct ver_webhook *w, const char *json)
{
	struct curl_slist *hdr = NULL;
	long status = 0;
	CURLcode rc;
	CURL *h = curl_easy_init();

	if (!h)
		return ATT_E_NOMEM;
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(h, CURLOPT_URL, w->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2);
	if (w->ca)
		curl_easy_setopt(h, CURLOPT_CAINFO, w->ca);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CURLE_OK) {
		att_warn("webhook: %s", curl_easy_strerror(rc));
		return ATT_E_NET;
	}
	if (status < 200 || status >= 300) {
		att_warn("webhook: HTTP %ld", status);
		return ATT_E_NET;
	}
	return 0;
}

/* Waits until `until` or stop; returns nonzero when stopping. */
static int wait_until(struct ver_webhook *w, const struct timespec *until)
{
	int stop;

	pthread_mutex_lock(&w->lock);
	while (!w->stop &&
	       pthread_cond_timedwait(&w->cond, &w->lock, until) != ETIMEDOUT)
		;
	stop = w->stop;
	pthread_mutex_unlock(&w->lock);
	return stop;
}

static void *worker(void *arg)
{
	struct ver_webhook *w = arg;
	struct wh_event *e;
	struct timespec until;
	unsigned int i, delay;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->stop && !w->head)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->stop) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		e = w->head;
		w->head = e->next;
		if (!w->head)
			w->tail = NULL;
		w->n--;
		pthread_mutex_unlock(&w->lock);
		for (i = 0, delay = 1; i < WH_TRIES; i++, delay *= 2) {
			if (!post_once(w, e->json))
				break;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += delay;
			if (i + 1 < WH_TRIES && wait_until(w, &until))
				break;
		}
		if (i == WH_TRIES)
			att_err("webhook: event given up after %d tries",
				WH_TRIES);
		free(e->json);
		free(e);
	}
	return NULL;
}

int ver_webhook_new(const char *url, const char *ca, struct ver_webhook **out)
{
	struct ver_webhook *w;

	*out = NULL;
	if (strncmp(url, "https://", 8)) {
		att_err("webhook_url must be https://");
		return ATT_E_INVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return ATT_E_NOMEM;
	w->url = strdup(url);
	w->ca = ca && *ca ? strdup(ca) : NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (!w->url || pthread_create(&w->thread, NULL, worker, w)) {
		free(w->url);
		free(w->ca);
		free(w);
		return ATT_E_NOMEM;
	}
	*out = w;
	return 0;
}

void ver_webhook_free(struct ver_webhook *w)
{
	struct wh_event *e, *n;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	for (e = w->head; e; e = n) {
		n = e->next;
		free(e->json);
		free(e);
	}
	if (w->n)
		att_warn("webhook: %u events not sent at shutdown", w->n);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w->url);
	free(w->ca);
	free(w);
}

void ver_webhook_post(struct ver_webhook *w, const char *json)
{
	struct wh_event *e, *old = NULL;

	if (!w)
		return;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->json = strdup(json))) {
		free(e);
		att_err("webhook: out of memory, event dropped");
		return;
	}
	pthread_mutex_lock(&w->lock);
	if (w->n >= WH_QUEUE_MAX) {
		old = w->head;
		w->head = old->next;
		w->n--;
	}
	if (w->tail)
		w->tail->next = e;
	else
		w->head = e;
	w->tail = e;
	w->n++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (old) {
		att_warn("webhook: queue full, oldest event dropped");
		free(old->json);
		free(old);
	}
}

void ver_webhook_state_change(struct ver_webhook *w, const char *id,
			      enum att_agent_state from, int64_t at,
			      const struct ver_verdict *v)
{
	struct json_object *o, *r;

	if (!w)
		return;
	o = json_object_new_object();
	r = json_object_new_array();
	if (!o || !r || ver_verdict_reasons_json(v, r)) {
		json_object_put(o);
		json_object_put(r);
		att_err("webhook: out of memory, event dropped");
		return;
	}
	json_object_object_add(o, "event",
			       json_object_new_string("state_changed"));
	json_object_object_add(o, "agent_id", json_object_new_string(id));
	json_object_object_add(
		o, "from", json_object_new_string(att_agent_state_name(from)));
	json_object_object_add(
		o, "to",
		json_object_new_string(att_agent_state_name(v->state)));
	json_object_object_add(o, "at", json_object_new_int64(at));
	json_object_object_add(o, "reasons", r);
	ver_webhook_post(w, json_object_to_json_string_ext(
				    o, JSON_C_TO_STRING_PLAIN |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}
