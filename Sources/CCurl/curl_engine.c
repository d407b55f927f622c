/* curl_engine.c: the transfer engine declared in ccurl.h, over the libcurl multi interface.
 * libcurl is reached only through `cu`, resolved by curl_loader.c.
 *
 * Threading: `pending` and `cancels` are protected by `lock` and touched by any thread
 * (ifc_engine_add / ifc_engine_cancel). Everything else (the multi handle, the easy handles, the
 * running list and the done list) belongs to the single thread that calls ifc_engine_run_once /
 * ifc_engine_next_done. curl_multi_wakeup is documented as thread-safe.
 */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <pthread.h>
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

static void xfer_free(xfer *x) {
    if (x == NULL) return;
    ifc_tap_end(x, 0);
    if (x->easy != NULL) cu.easy_cleanup(x->easy);
    if (x->slist != NULL) cu.slist_free_all(x->slist);
    free(x->url);
    free(x->host);
    free(x->user_agent);
    if (x->headers != NULL) {
        for (int i = 0; i < x->header_count; i++) free(x->headers[i]);
        free(x->headers);
    }
    free(x->body);
    free(x->hdr);
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

static void running_unlink(ifc_engine *e, xfer *x) {
    if (x->prev != NULL) x->prev->next = x->next; else e->running = x->next;
    if (x->next != NULL) x->next->prev = x->prev;
    x->next = x->prev = NULL;
    e->running_count--;
}

/* ---------------------------------------------------------------------------------------------
 * Engine lifecycle
 * ------------------------------------------------------------------------------------------- */

ifc_engine *ifc_engine_new(long max_total, long max_per_host) {
    if (ifc_load(NULL, 0) != 0) return NULL;
    ifc_engine *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    if (pthread_mutex_init(&e->lock, NULL) != 0) {
        free(e);
        return NULL;
    }
    e->multi = cu.multi_init();
    if (e->multi == NULL) {
        pthread_mutex_destroy(&e->lock);
        free(e);
        return NULL;
    }
    if (max_total > 0) cu.multi_setopt(e->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max_total);
    if (max_per_host > 0) cu.multi_setopt(e->multi, CURLMOPT_MAX_HOST_CONNECTIONS, max_per_host);
    e->max_total = max_total > 0 ? max_total : 0;
    e->max_per_host = max_per_host > 0 ? max_per_host : 0;
    e->next_id = 1;
    return e;
}

void ifc_engine_free(ifc_engine *e) {
    if (e == NULL) return;
    while (e->running != NULL) {
        xfer *x = e->running;
        running_unlink(e, x);
        cu.multi_remove_handle(e->multi, x->easy);
        xfer_free(x);
    }
    for (xfer *x = e->pending_head; x != NULL;) {
        xfer *next = x->next;
        xfer_free(x);
        x = next;
    }
    for (xfer *x = e->waiting_head; x != NULL;) {
        xfer *next = x->next;
        xfer_free(x);
        x = next;
    }
    for (cancel_node *c = e->cancels; c != NULL;) {
        cancel_node *next = c->next;
        free(c);
        c = next;
    }
    for (done_node *d = e->done_head; d != NULL;) {
        done_node *next = d->next;
        ifc_result_free(&d->r);
        free(d);
        d = next;
    }
    cu.multi_cleanup(e->multi);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* ---------------------------------------------------------------------------------------------
 * Thread-safe entry points
 * ------------------------------------------------------------------------------------------- */

static char *dup_or_empty(const char *s) {
    return strdup(s != NULL ? s : "");
}

/* "scheme://user@Host:port/path" -> "host:port" (lower-case); the whole string when it has no "://". */
static char *url_host(const char *url) {
    const char *start = strstr(url, "://");
    start = start != NULL ? start + 3 : url;
    size_t n = strcspn(start, "/?#");
    const char *at = memchr(start, '@', n);
    if (at != NULL) {
        n -= (size_t)(at + 1 - start);
        start = at + 1;
    }
    char *h = strndup(start, n);
    if (h != NULL) for (char *p = h; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    return h;
}

uint64_t ifc_engine_add(ifc_engine *e, const ifc_request *r) {
    if (r != NULL && r->tap_end != NULL && (e == NULL || r->url == NULL)) r->tap_end(r->tap_ctx, 0);
    if (e == NULL || r == NULL || r->url == NULL) return 0;
    xfer *x = calloc(1, sizeof *x);
    if (x == NULL) {
        if (r->tap_end != NULL) r->tap_end(r->tap_ctx, 0);
        return 0;
    }
    x->tap_data = r->tap_data;   /* first: xfer_free ends the tap on every failure below */
    x->tap_end = r->tap_end;
    x->tap_ctx = r->tap_ctx;
    x->url = strdup(r->url);
    x->host = url_host(r->url);
    x->user_agent = r->user_agent != NULL ? strdup(r->user_agent) : NULL;
    if (x->url == NULL || x->host == NULL || (r->user_agent != NULL && x->user_agent == NULL)) goto fail;
    if (r->header_count > 0 && r->headers != NULL) {
        x->headers = calloc((size_t)r->header_count, sizeof *x->headers);
        if (x->headers == NULL) goto fail;
        x->header_count = r->header_count;
        for (int i = 0; i < r->header_count; i++) {
            x->headers[i] = dup_or_empty(r->headers[i]);
            if (x->headers[i] == NULL) goto fail;
        }
    }
    x->connect_timeout_ms = r->connect_timeout_ms;
    x->timeout_ms = r->timeout_ms;
    x->max_bytes = r->max_bytes;
    x->max_redirects = r->max_redirects;

    pthread_mutex_lock(&e->lock);
    x->id = e->next_id++;
    x->next = NULL;
    if (e->pending_tail != NULL) e->pending_tail->next = x; else e->pending_head = x;
    e->pending_tail = x;
    e->pending_count++;
    uint64_t id = x->id;
    pthread_mutex_unlock(&e->lock);

    cu.multi_wakeup(e->multi);
    return id;
fail:
    xfer_free(x);
    return 0;
}

void ifc_engine_cancel(ifc_engine *e, uint64_t id) {
    if (e == NULL || id == 0) return;
    cancel_node *c = malloc(sizeof *c);
    if (c == NULL) return;
    c->id = id;
    pthread_mutex_lock(&e->lock);
    c->next = e->cancels;
    e->cancels = c;
    pthread_mutex_unlock(&e->lock);
    cu.multi_wakeup(e->multi);
}

void ifc_engine_cancel_all(ifc_engine *e) {
    if (e == NULL) return;
    pthread_mutex_lock(&e->lock);
    e->closed = 1;
    pthread_mutex_unlock(&e->lock);
    cu.multi_wakeup(e->multi);
}

void ifc_engine_wakeup(ifc_engine *e) {
    if (e != NULL) cu.multi_wakeup(e->multi);
}

/* ---------------------------------------------------------------------------------------------
 * Loop thread
 * ------------------------------------------------------------------------------------------- */

/* Build the result of `x` (in no list any more) and free `x`. `attached` says that x->easy is in
 * the multi handle: its info is read first, then it is removed. */
static void finish(ifc_engine *e, xfer *x, int code, const char *message, int attached) {
    ifc_tap_end(x, code == CURLE_OK);   /* before the result is delivered */
    done_node *d = calloc(1, sizeof *d);
    if (d == NULL) {          /* nothing sensible left to do: the caller will never hear back */
        if (attached) cu.multi_remove_handle(e->multi, x->easy);
        xfer_free(x);
        return;
    }
    ifc_result *r = &d->r;
    r->id = x->id;
    r->curl_code = code;
    r->too_large = x->too_large || code == CURLE_FILESIZE_EXCEEDED;

    const char *eff = NULL;
    if (attached && x->easy != NULL) {
        long status = 0, redirects = 0;
        curl_off_t dl = 0;
        if (cu.easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) r->http_status = status;
        if (cu.easy_getinfo(x->easy, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK) r->redirects = redirects;
        if (cu.easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &dl) == CURLE_OK) r->download_bytes = dl;
        if (cu.easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff) != CURLE_OK) eff = NULL;
    }
    r->effective_url = strdup(eff != NULL ? eff : (x->url != NULL ? x->url : ""));
    if (attached) cu.multi_remove_handle(e->multi, x->easy);

    if (code != CURLE_OK) {
        const char *text = message;
        if (text == NULL || text[0] == '\0') text = x->errbuf[0] ? x->errbuf : NULL;
        if (text == NULL) text = cu.easy_strerror((CURLcode)code);
        if (x->too_large && code == CURLE_WRITE_ERROR) text = "response body exceeds the byte limit";
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
    xfer_free(x);
    push_done(e, d);
}

#define SETOPT(opt, val) (cu.easy_setopt(x->easy, (opt), (val)) == CURLE_OK)

/* Create the easy handle of `x` and add it to the multi handle; on failure, finish it. */
static void start(ifc_engine *e, xfer *x) {
    x->easy = cu.easy_init();
    if (x->easy == NULL) {
        finish(e, x, CURLE_FAILED_INIT, "curl_easy_init failed", 0);
        return;
    }
    for (int i = 0; i < x->header_count; i++) {
        struct curl_slist *s = cu.slist_append(x->slist, x->headers[i]);
        if (s == NULL) {
            finish(e, x, CURLE_OUT_OF_MEMORY, "out of memory", 0);
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
    ok &= SETOPT(CURLOPT_FOLLOWLOCATION, 1L);
    ok &= SETOPT(CURLOPT_MAXREDIRS, (long)(x->max_redirects >= 0 ? x->max_redirects : 0));
    ok &= SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
    ok &= SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    if (x->connect_timeout_ms > 0) ok &= SETOPT(CURLOPT_CONNECTTIMEOUT_MS, x->connect_timeout_ms);
    if (x->timeout_ms > 0) ok &= SETOPT(CURLOPT_TIMEOUT_MS, x->timeout_ms);
    if (x->max_bytes > 0) ok &= SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_bytes);
    ok &= SETOPT(CURLOPT_WRITEFUNCTION, ifc_write_cb);
    ok &= SETOPT(CURLOPT_WRITEDATA, (void *)x);
    ok &= SETOPT(CURLOPT_HEADERFUNCTION, ifc_header_cb);
    ok &= SETOPT(CURLOPT_HEADERDATA, (void *)x);
    if (!ok) {
        finish(e, x, CURLE_FAILED_INIT, "could not configure the transfer", 0);
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
        finish(e, x, CURLE_FAILED_INIT, "curl_multi_add_handle failed", 0);
        return;
    }
    running_insert(e, x);
}

#undef SETOPT

static void waiting_push(ifc_engine *e, xfer *x) {
    x->next = NULL;
    if (e->waiting_tail != NULL) e->waiting_tail->next = x; else e->waiting_head = x;
    e->waiting_tail = x;
    e->waiting_count++;
}

/* Unlinks `x` (whose predecessor in the waiting list is `prev`, or NULL). */
static void waiting_unlink(ifc_engine *e, xfer *prev, xfer *x) {
    if (prev != NULL) prev->next = x->next; else e->waiting_head = x->next;
    if (e->waiting_tail == x) e->waiting_tail = prev;
    x->next = NULL;
    e->waiting_count--;
}

static int running_for_host(const ifc_engine *e, const char *host) {
    int n = 0;
    for (const xfer *r = e->running; r != NULL; r = r->next) n += strcmp(r->host, host) == 0;
    return n;
}

/* Starts waiting transfers, oldest first, while a transfer slot is free; one whose host is at
 * its limit waits without holding back the others. */
static void start_waiting(ifc_engine *e) {
    xfer *prev = NULL;
    for (xfer *x = e->waiting_head; x != NULL;) {
        if (e->max_total > 0 && e->running_count >= e->max_total) return;
        xfer *next = x->next;
        if (e->max_per_host > 0 && running_for_host(e, x->host) >= e->max_per_host) {
            prev = x;
        } else {
            waiting_unlink(e, prev, x);
            start(e, x);
        }
        x = next;
    }
}

int ifc_engine_run_once(ifc_engine *e, int timeout_ms) {
    if (e == NULL) return 0;

    /* Take the queued requests and cancellations. */
    pthread_mutex_lock(&e->lock);
    xfer *pending = e->pending_head;
    e->pending_head = e->pending_tail = NULL;
    e->pending_count = 0;
    cancel_node *cancels = e->cancels;
    e->cancels = NULL;
    int closed = e->closed;
    pthread_mutex_unlock(&e->lock);
    while (pending != NULL) {
        xfer *x = pending;
        pending = x->next;
        waiting_push(e, x);
    }

    /* Closed: everything ends now, before curl_multi_perform could start anything. */
    if (closed) {
        while (e->running != NULL) {
            xfer *x = e->running;
            running_unlink(e, x);
            finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 1);
        }
        while (e->waiting_head != NULL) {
            xfer *x = e->waiting_head;
            waiting_unlink(e, NULL, x);
            finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 0);
        }
    }

    /* Cancellations: a waiting request never starts; a running one is removed. Unknown ids
     * (already finished) are ignored. */
    while (cancels != NULL) {
        cancel_node *c = cancels;
        cancels = c->next;
        int found = 0;
        for (xfer *prev = NULL, *x = e->waiting_head; x != NULL; prev = x, x = x->next) {
            if (x->id == c->id) {
                waiting_unlink(e, prev, x);
                finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 0);
                found = 1;
                break;
            }
        }
        if (!found) {
            for (xfer *x = e->running; x != NULL; x = x->next) {
                if (x->id == c->id) {
                    running_unlink(e, x);
                    finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 1);
                    break;
                }
            }
        }
        free(c);
    }

    /* Freed slots (finished or cancelled transfers) go to the next waiting transfers at once. */
    start_waiting(e);

    int still = 0;
    cu.multi_perform(e->multi, &still);

    CURLMsg *msg;
    int left = 0;
    while ((msg = cu.multi_info_read(e->multi, &left)) != NULL) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL *easy = msg->easy_handle;
        int code = (int)msg->data.result;   /* read before the handle is removed */
        xfer *x = NULL;
        cu.easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&x);
        if (x == NULL) {              /* not ours: cannot happen, but never leak a handle */
            cu.multi_remove_handle(e->multi, easy);
            continue;
        }
        running_unlink(e, x);
        finish(e, x, code, NULL, 1);   /* reads the info, then removes the handle */
    }

    /* Finished results are waiting: return now so the caller delivers them without delay. */
    if (e->done_head == NULL) {
        int numfds = 0;
        cu.multi_poll(e->multi, NULL, 0, timeout_ms, &numfds);
    }

    pthread_mutex_lock(&e->lock);
    int queued = e->pending_count;
    pthread_mutex_unlock(&e->lock);
    return e->running_count + e->waiting_count + queued;
}

int ifc_engine_next_done(ifc_engine *e, ifc_result *out) {
    if (e == NULL || out == NULL || e->done_head == NULL) return 0;
    done_node *d = e->done_head;
    e->done_head = d->next;
    if (e->done_head == NULL) e->done_tail = NULL;
    *out = d->r;
    free(d);
    return 1;
}

void ifc_result_free(ifc_result *r) {
    if (r == NULL) return;
    free(r->body);
    free(r->headers);
    free(r->effective_url);
    r->body = NULL;
    r->body_len = 0;
    r->headers = NULL;
    r->effective_url = NULL;
}
