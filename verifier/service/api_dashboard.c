// SPDX-License-Identifier: Apache-2.0
/*
 * api_dashboard.c - GET /dashboard, /dashboard.js, /dashboard.css
 * (admin): the fleet dashboard, a static page compiled into the binary
 * from verifier/service/dashboard.{html,js,css} (mk/embed.sh). The page
 * holds no data: its script reads GET /v1/fleet over the same TLS
 * connection, with the same admin client certificate, every few seconds.
 * It is still admin only, like everything that describes the fleet.
 *
 * Every asset goes out with a Content-Security-Policy that allows only
 * this origin's script and style sheet and fetches to this origin (no
 * inline script or style, no frames, no forms), and headers that keep it
 * out of frames, caches and other origins' reach.
 */
#include <string.h>

#include "attest/err.h"
#include "dashboard_assets.h"
#include "service.h"

static const char *const dash_headers[] = {
	"Content-Security-Policy",
	"default-src 'none'; script-src 'self'; style-src 'self'; "
	"connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
	"form-action 'none'; frame-ancestors 'none'",
	"X-Frame-Options",
	"DENY",
	"Referrer-Policy",
	"no-referrer",
	"Cross-Origin-Opener-Policy",
	"same-origin",
	"Cross-Origin-Resource-Policy",
	"same-origin",
	NULL,
};

struct dash_asset {
	const char *path;
	const unsigned char *data;
	size_t len;
	const char *ctype;
};

static const struct dash_asset dash_assets[] = {
	{"/dashboard", ver_dash_html, sizeof(ver_dash_html),
	 "text/html; charset=utf-8"},
	{"/dashboard.js", ver_dash_js, sizeof(ver_dash_js),
	 "text/javascript; charset=utf-8"},
	{"/dashboard.css", ver_dash_css, sizeof(ver_dash_css),
	 "text/css; charset=utf-8"},
};

#define DASH_NASSETS (sizeof(dash_assets) / sizeof(dash_assets[0]))

int ver_api_dashboard(struct ver_req *rq, struct ver_resp *rs)
{
	const struct dash_asset *a = NULL;
	size_t i;

	if (!rq->ctx->cfg->dashboard)
		return ver_error(rs, 404, "not_found",
				 "the dashboard is turned off (dashboard = 0)");
	for (i = 0; i < DASH_NASSETS; i++)
		if (!strcmp(dash_assets[i].path, rq->url))
			a = &dash_assets[i];
	if (!a)
		return ver_error(rs, 404, "not_found", "no such endpoint");
	att_buf_release(&rs->body);
	if (att_buf_append(&rs->body, a->data, a->len))
		return ver_error(rs, 503, "unavailable", "out of memory");
	rs->status = 200;
	rs->ctype = a->ctype;
	rs->headers = dash_headers;
	return 0;
}
