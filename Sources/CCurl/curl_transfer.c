/* curl_transfer.c: one transfer's life on the loop thread: its easy handle configured and added
 * (ifc_start), its result built and delivered (ifc_finish), its memory released (ifc_xfer_free).
 * See curl_engine.c for the engine and its threading rules.
 */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ifc_tap_end(xfer *x, int complete) {
    if (x->tap_end == NULL) return;
    void (*end)(void *, int) = x->tap_end;
    x->tap_end = NULL;
    x->tap_data = NULL;
    end(x->tap_ctx, complete && !x->tap_broken);
}

void ifc_xfer_free(xfer *x) {
    if (x == NULL) return;
    ifc_tap_end(x, 0);
    ifc_meter_running(x, 0);
    if (x->easy != NULL) cu.easy_cleanup(x->easy);
    if (x->slist != NULL) cu.slist_free_all(x->slist);
    free(x->url);
    free(x->host);
    free(x->user_agent);
    for (int i = 0; i < IFC_S_COUNT; i++) {
        /* a password may be in it: cleared before it is freed */
        if (x->strings[i] != NULL && i == IFC_S_USERPWD) memset(x->strings[i], 0, strlen(x->strings[i]));
        free(x->strings[i]);
    }
    if (x->headers != NULL) {
        for (int i = 0; i < x->header_count; i++) free(x->headers[i]);
        free(x->headers);
    }
    free(x->body);
    free(x->hdr);
    free(x->upload);
    free(x->deny);
    if (x->resolve != NULL) cu.slist_free_all(x->resolve);
    free(x);
}

static void push_done(ifc_engine *e, done_node *n) {
    n->next = NULL;
    if (e->done_tail != NULL) e->done_tail->next = n; else e->done_head = n;
    e->done_tail = n;
}

static void running_insert(ifc_engine *e, xfer *x) {
    x->prev = NULL;
    x->next = e->running;
    if (e->running != NULL) e->running->prev = x;
    e->running = x;
    e->running_count++;
}

/* Build the result of `x` (in no list any more) and free `x`. `attached` says that x->easy is in
 * the multi handle: its info is read first, then it is removed. */
void ifc_finish(ifc_engine *e, xfer *x, int code, const char *message, int attached) {
    ifc_tap_end(x, code == CURLE_OK);   /* before the result is delivered */
    done_node *d = calloc(1, sizeof *d);
    if (d == NULL) {          /* nothing sensible left to do: the caller will never hear back */
        if (attached) cu.multi_remove_handle(e->multi, x->easy);
        ifc_xfer_free(x);
        return;
    }
    ifc_result *r = &d->r;
    r->id = x->id;
    r->curl_code = code;
    r->too_large = x->too_large || code == CURLE_FILESIZE_EXCEEDED;
    r->stopped = x->stopped && code == CURLE_WRITE_ERROR;
    snprintf(r->denied, sizeof r->denied, "%s", x->denied);

    const char *eff = NULL;
    if (attached && x->easy != NULL) {
        long status = 0, redirects = 0;
        curl_off_t dl = 0;
        if (cu.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) r->http_status = status;
        if (cu.easy_getinfo(x->easy, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK) r->redirects = redirects;
        if (cu.easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &dl) == CURLE_OK) r->download_bytes = dl;
        if (cu.easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff) != CURLE_OK) eff = NULL;
        const struct { CURLINFO info; long long *out; } times[] = {
            {CURLINFO_NAMELOOKUP_TIME_T, &r->t_dns}, {CURLINFO_CONNECT_TIME_T, &r->t_connect},
            {CURLINFO_APPCONNECT_TIME_T, &r->t_tls}, {CURLINFO_STARTTRANSFER_TIME_T, &r->t_first_byte},
            {CURLINFO_TOTAL_TIME_T, &r->t_total},
        };
        for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
            curl_off_t t = 0;
            if (cu.easy_getinfo(x->easy, times[i].info, &t) == CURLE_OK && t > 0) *times[i].out = t;
        }
    }
    r->effective_url = strdup(eff != NULL ? eff : (x->url != NULL ? x->url : ""));
    /* The gate hears the answer before the loop starts another transfer (a 429's hold). */
    if (attached && x->answered != NULL) x->answered(x->gate_ctx, r->http_status);
    if (attached) cu.multi_remove_handle(e->multi, x->easy);

    if (code != CURLE_OK) {
        const char *text = message;
        if (text == NULL || text[0] == '\0') text = x->errbuf[0] ? x->errbuf : NULL;
        if (text == NULL) text = cu.easy_strerror((CURLcode)code);
        if (x->too_large && code == CURLE_WRITE_ERROR) text = "response body exceeds the byte limit";
        if (x->stopped && code == CURLE_WRITE_ERROR) text = "stopped: the body read so far serves the request";
        if (x->oom) text = "out of memory";
        snprintf(r->error, sizeof r->error, "%s", text != NULL ? text : "");
    }

    /* The body moves to the result. A failed transfer keeps what it received. */
    if (x->body_len > 0) {
        r->body = x->body;
        r->body_len = x->body_len;
        x->body = NULL;
        x->body_len = x->body_cap = 0;
    }
    if (x->hdr != NULL) {
        r->headers = x->hdr;
        x->hdr = NULL;
        x->hdr_len = x->hdr_cap = 0;
    } else {
        r->headers = strdup("");
    }
    ifc_xfer_free(x);
    push_done(e, d);
}

#define SETOPT(opt, val) (cu.easy_setopt(x->easy, (opt), (val)) == CURLE_OK)

/* Create the easy handle of `x` and add it to the multi handle; on failure, finish it. */
void ifc_start(ifc_engine *e, xfer *x) {
    x->easy = cu.easy_init();
    if (x->easy == NULL) {
        ifc_finish(e, x, CURLE_FAILED_INIT, "curl_easy_init failed", 0);
        return;
    }
    /* A PUT sends its body at once: no `Expect: 100-continue` round trip. Not when signing:
     * libcurl 7.88 would sign the removed header (`expect` in SignedHeaders) and S3 refuses the
     * signature; a signed PUT of more than 1 MiB waits for `100 Continue`, which S3 sends. */
    int extra = x->method == IFC_M_PUT && x->strings[IFC_S_AWS_SIGV4] == NULL ? 1 : 0;
    for (int i = 0; i < x->header_count + extra; i++) {
        struct curl_slist *s = cu.slist_append(x->slist, i < x->header_count ? x->headers[i] : "Expect:");
        if (s == NULL) {
            ifc_finish(e, x, CURLE_OUT_OF_MEMORY, "out of memory", 0);
            return;
        }
        x->slist = s;
    }
    int ok = 1;
    ok &= SETOPT(CURLOPT_PRIVATE, (void *)x);
    ok &= SETOPT(CURLOPT_ERRORBUFFER, x->errbuf);
    ok &= SETOPT(CURLOPT_NOSIGNAL, 1L);
    ok &= SETOPT(CURLOPT_URL, x->url);
    if (x->user_agent != NULL) ok &= SETOPT(CURLOPT_USERAGENT, x->user_agent);
    if (x->slist != NULL) ok &= SETOPT(CURLOPT_HTTPHEADER, x->slist);
    /* max_redirects 0: libcurl does not follow (imgfetch's pipeline follows each hop itself). */
    ok &= SETOPT(CURLOPT_FOLLOWLOCATION, x->max_redirects > 0 ? 1L : 0L);
    ok &= SETOPT(CURLOPT_MAXREDIRS, (long)(x->max_redirects >= 0 ? x->max_redirects : 0));
    ok &= SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
    ok &= SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    if (x->connect_timeout_ms > 0) ok &= SETOPT(CURLOPT_CONNECTTIMEOUT_MS, x->connect_timeout_ms);
    if (x->timeout_ms > 0) ok &= SETOPT(CURLOPT_TIMEOUT_MS, x->timeout_ms);
    if (x->max_bytes > 0) ok &= SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_bytes);
    if (x->strings[IFC_S_CAINFO] != NULL) ok &= SETOPT(CURLOPT_CAINFO, x->strings[IFC_S_CAINFO]);
    if (x->strings[IFC_S_CAPATH] != NULL) ok &= SETOPT(CURLOPT_CAPATH, x->strings[IFC_S_CAPATH]);
    if (x->strings[IFC_S_PROXY] != NULL) ok &= SETOPT(CURLOPT_PROXY, x->strings[IFC_S_PROXY]);
    if (x->strings[IFC_S_NOPROXY] != NULL) ok &= SETOPT(CURLOPT_NOPROXY, x->strings[IFC_S_NOPROXY]);
    if (x->strings[IFC_S_USERPWD] != NULL) {
        ok &= SETOPT(CURLOPT_USERPWD, x->strings[IFC_S_USERPWD]);
        ok &= SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        ok &= SETOPT(CURLOPT_UNRESTRICTED_AUTH, 0L);   /* never to another host after a redirect */
    }
    if (x->strings[IFC_S_NETRC_FILE] != NULL) {
        ok &= SETOPT(CURLOPT_NETRC, (long)CURL_NETRC_REQUIRED);
        ok &= SETOPT(CURLOPT_NETRC_FILE, x->strings[IFC_S_NETRC_FILE]);
    }
    /* After USERPWD: CURLOPT_AWS_SIGV4 replaces its Basic authentication with a signature. */
    if (x->strings[IFC_S_AWS_SIGV4] != NULL) ok &= SETOPT(CURLOPT_AWS_SIGV4, x->strings[IFC_S_AWS_SIGV4]);
    if (x->method == IFC_M_HEAD) {
        ok &= SETOPT(CURLOPT_NOBODY, 1L);
    } else if (x->method == IFC_M_PUT) {
        /* POSTFIELDS (not UPLOAD + a read callback): libcurl rewinds it itself when it resends the
         * request on a reused connection that turned out closed; the size sets Content-Length. */
        ok &= SETOPT(CURLOPT_CUSTOMREQUEST, "PUT");
        ok &= SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->upload_len);
        ok &= SETOPT(CURLOPT_POSTFIELDS, x->upload != NULL ? (const char *)x->upload : "");
    }
    if (x->insecure) {
        ok &= SETOPT(CURLOPT_SSL_VERIFYPEER, 0L);
        ok &= SETOPT(CURLOPT_SSL_VERIFYHOST, 0L);
        (void)SETOPT(CURLOPT_PROXY_SSL_VERIFYPEER, 0L);
        (void)SETOPT(CURLOPT_PROXY_SSL_VERIFYHOST, 0L);
    }
    if (x->strings[IFC_S_RESOLVE] != NULL) {
        /* One entry a line; the list lives as long as the handle. */
        for (char *line = x->strings[IFC_S_RESOLVE]; *line != '\0';) {
            char *end = strchr(line, '\n');
            if (end != NULL) *end = '\0';
            if (*line != '\0') {
                struct curl_slist *s = cu.slist_append(x->resolve, line);
                if (s == NULL) {
                    ifc_finish(e, x, CURLE_OUT_OF_MEMORY, "out of memory", 0);
                    return;
                }
                x->resolve = s;
            }
            if (end == NULL) break;
            line = end + 1;
        }
        if (x->resolve != NULL) ok &= SETOPT(CURLOPT_RESOLVE, x->resolve);
    }
    if (x->deny_count > 0) {
        ok &= SETOPT(CURLOPT_OPENSOCKETFUNCTION, ifc_opensocket_cb);
        ok &= SETOPT(CURLOPT_OPENSOCKETDATA, (void *)x);
    }
    if (x->max_recv_speed > 0) ok &= SETOPT(CURLOPT_MAX_RECV_SPEED_LARGE, (curl_off_t)x->max_recv_speed);
    if (x->low_speed_time > 0) {
        ok &= SETOPT(CURLOPT_LOW_SPEED_LIMIT, x->low_speed_limit > 0 ? x->low_speed_limit : 1L);
        ok &= SETOPT(CURLOPT_LOW_SPEED_TIME, x->low_speed_time);
    }
    if (x->range_from > 0) {
        char range[32];
        snprintf(range, sizeof range, "%lld-", x->range_from);
        ok &= SETOPT(CURLOPT_RANGE, range);   /* copied by libcurl */
    }
    if (e->has_bucket) x->bucket = &e->bucket;
    if (x->cookies && e->share != NULL) {
        /* "" turns the cookie engine on without reading a file; the share holds the cookies. */
        ok &= SETOPT(CURLOPT_SHARE, e->share);
        ok &= SETOPT(CURLOPT_COOKIEFILE, "");
    }
    ok &= SETOPT(CURLOPT_WRITEFUNCTION, ifc_write_cb);
    ok &= SETOPT(CURLOPT_WRITEDATA, (void *)x);
    ok &= SETOPT(CURLOPT_HEADERFUNCTION, ifc_header_cb);
    ok &= SETOPT(CURLOPT_HEADERDATA, (void *)x);
    if (!ok) {
        ifc_finish(e, x, CURLE_FAILED_INIT, "could not configure the transfer", 0);
        return;
    }
    /* Optional: a libcurl without HTTP/2 or keepalive support still works without these. */
    (void)SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
    /* PIPEWAIT makes a second transfer to a host wait for the first one's response, hoping to
     * multiplex it over HTTP/2. Only TLS can negotiate HTTP/2 here (HTTP_VERSION_2TLS); on plain
     * HTTP/1.1 the wait just serialises the start of a batch, so ask for it on https only. */
    if (strncasecmp(x->url, "https:", 6) == 0) (void)SETOPT(CURLOPT_PIPEWAIT, 1L);
    (void)SETOPT(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);

    CURLMcode mc = cu.multi_add_handle(e->multi, x->easy);
    if (mc != CURLM_OK) {
        ifc_finish(e, x, CURLE_FAILED_INIT, "curl_multi_add_handle failed", 0);
        return;
    }
    running_insert(e, x);
    ifc_meter_running(x, 1);
}

#undef SETOPT

