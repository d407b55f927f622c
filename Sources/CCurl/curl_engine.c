/* curl_engine.c: the transfer engine declared in ccurl.h, over the libcurl multi interface:
 * its lifecycle, the thread-safe entry points, and the loop (one transfer's own life is in
 * curl_transfer.c). libcurl is reached only through `cu`, resolved by curl_loader.c.
 *
 * Threading: `pending`, `cancels` and `closed` are protected by `lock` and touched by any thread
 * (ifc_engine_add / ifc_engine_cancel / ifc_engine_cancel_all). Everything else (the multi handle,
 * the easy handles, the waiting, running and done lists) belongs to the single thread that calls
 * ifc_engine_run_once / ifc_engine_next_done. curl_multi_wakeup is documented as thread-safe.
 */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ifc_running_unlink(ifc_engine *e, xfer *x) {
    if (x->prev != NULL) x->prev->next = x->next; else e->running = x->next;
    if (x->next != NULL) x->next->prev = x->prev;
    x->next = x->prev = NULL;
    e->running_count--;
}

/* ---------------------------------------------------------------------------------------------
 * Engine lifecycle
 * ------------------------------------------------------------------------------------------- */

ifc_engine *ifc_engine_new(long max_total, long max_per_host, long long rate_total) {
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
    if (rate_total > 0) {
        e->has_bucket = 1;
        ifc_bucket_init(&e->bucket, rate_total);
    }
    return e;
}

void ifc_engine_free(ifc_engine *e) {
    if (e == NULL) return;
    while (e->running != NULL) {
        xfer *x = e->running;
        ifc_running_unlink(e, x);
        cu.multi_remove_handle(e->multi, x->easy);
        ifc_xfer_free(x);
    }
    for (xfer *x = e->pending_head; x != NULL;) {
        xfer *next = x->next;
        ifc_xfer_free(x);
        x = next;
    }
    for (xfer *x = e->waiting_head; x != NULL;) {
        xfer *next = x->next;
        ifc_xfer_free(x);
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
    if (e->share != NULL) {
        cu.share_cleanup(e->share);
        pthread_mutex_destroy(&e->cookie_lock);
    }
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
    if (r == NULL) return 0;
    xfer *x = e != NULL && r->url != NULL ? calloc(1, sizeof *x) : NULL;
    if (x == NULL) {
        if (r->tap_end != NULL) r->tap_end(r->tap_ctx, 0);
        return 0;
    }
    x->tap_data = r->tap_data;   /* first: xfer_free ends the tap on every failure below */
    x->tap_end = r->tap_end;
    x->tap_ctx = r->tap_ctx;
    x->tap_only = r->tap_only && r->tap_data != NULL;
    x->watch = r->tap_only ? NULL : r->watch;
    x->watch_ctx = r->watch_ctx;
    x->headers_check = r->headers_check;
    x->headers_check_ctx = r->headers_check_ctx;
    x->meter = r->meter;
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
    for (int i = 0; i < IFC_S_COUNT; i++) {
        if (r->strings[i] == NULL) continue;
        x->strings[i] = strdup(r->strings[i]);
        if (x->strings[i] == NULL) goto fail;
    }
    x->insecure = r->insecure;
    x->max_recv_speed = r->max_recv_speed;
    x->cookies = r->cookies;
    x->range_from = r->range_from > 0 ? r->range_from : 0;
    x->start_wait = r->start_wait;
    x->answered = r->answered;
    x->gate_ctx = r->gate_ctx;
    x->low_speed_limit = r->low_speed_limit;
    x->low_speed_time = r->low_speed_time;
    x->method = r->method;
    if (x->method == IFC_M_PUT && r->upload_len > 0) {
        if (r->upload == NULL) goto fail;
        x->upload = malloc(r->upload_len);
        if (x->upload == NULL) goto fail;
        memcpy(x->upload, r->upload, r->upload_len);
        x->upload_len = r->upload_len;
    }
    if (r->deny_count > 0) {
        if (r->deny == NULL) goto fail;
        x->deny = malloc((size_t)r->deny_count * IFC_DENY_RULE_SIZE);
        if (x->deny == NULL) goto fail;
        memcpy(x->deny, r->deny, (size_t)r->deny_count * IFC_DENY_RULE_SIZE);
        x->deny_count = r->deny_count;
    }

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
    ifc_xfer_free(x);
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

/* ---------------------------------------------------------------------------------------------
 * Loop thread
 * ------------------------------------------------------------------------------------------- */

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

/* Whether the origin gate of `x` (if any) lets it start now; if not, when to ask again. */
static int gate_allows(xfer *x, double now) {
    if (x->start_wait == NULL) return 1;
    if (now < x->not_before) return 0;
    long wait_ms = x->start_wait(x->gate_ctx);
    if (wait_ms <= 0) return 1;
    x->not_before = now + (double)wait_ms / 1000.0;
    return 0;
}

/* Starts waiting transfers, oldest first, while a transfer slot is free; one whose host is at
 * its limit, or whose origin gate holds it, waits without holding back the others. */
static void start_waiting(ifc_engine *e) {
    xfer *prev = NULL;
    double now = ifc_monotonic();
    for (xfer *x = e->waiting_head; x != NULL;) {
        if (e->max_total > 0 && e->running_count >= e->max_total) return;
        xfer *next = x->next;
        if ((e->max_per_host > 0 && running_for_host(e, x->host) >= e->max_per_host) || !gate_allows(x, now)) {
            prev = x;
        } else {
            waiting_unlink(e, prev, x);
            ifc_start(e, x);
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
            ifc_running_unlink(e, x);
            ifc_finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 1);
        }
        while (e->waiting_head != NULL) {
            xfer *x = e->waiting_head;
            waiting_unlink(e, NULL, x);
            ifc_finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 0);
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
                ifc_finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 0);
                found = 1;
                break;
            }
        }
        if (!found) {
            for (xfer *x = e->running; x != NULL; x = x->next) {
                if (x->id == c->id) {
                    ifc_running_unlink(e, x);
                    ifc_finish(e, x, CURLE_ABORTED_BY_CALLBACK, "transfer cancelled", 1);
                    break;
                }
            }
        }
        free(c);
    }

    /* Freed slots (finished or cancelled transfers) go to the next waiting transfers at once. */
    start_waiting(e);

    int still = 0;
    int paused = e->has_bucket ? ifc_unpause_ready(e) : 0;
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
        ifc_running_unlink(e, x);
        ifc_finish(e, x, code, NULL, 1);   /* reads the info, then removes the handle */
    }

    /* Finished results are waiting: return now so the caller delivers them without delay. */
    if (e->done_head == NULL) {
        int numfds = 0;
        /* A paused transfer waits for the bucket, not for its socket: wake when it has refilled. */
        if (e->has_bucket) {
            for (xfer *x = e->running; x != NULL && paused == 0; x = x->next) paused += x->paused;
            if (paused > 0 && ifc_bucket_wait_ms(&e->bucket) < timeout_ms) timeout_ms = ifc_bucket_wait_ms(&e->bucket);
        }
        /* A transfer its origin gate holds is asked again when its wait ends. */
        double now = ifc_monotonic();
        for (xfer *x = e->waiting_head; x != NULL; x = x->next) {
            if (x->start_wait == NULL || x->not_before <= now) continue;
            double ms = (x->not_before - now) * 1000.0 + 1;
            if (ms < (double)timeout_ms) timeout_ms = (int)ms;
        }
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
