/* curl_internal.h: what the files of the libcurl shim share (not part of the module's API).
 * curl_loader.c resolves libcurl with dlopen into `cu`; curl_callbacks.c holds the transfer
 * callbacks; curl_engine.c the multi engine. <curl/curl.h> gives types and constants only. */
#ifndef CURL_INTERNAL_H
#define CURL_INTERNAL_H
#define CURL_DISABLE_TYPECHECK 1
#define CURL_NO_OLDIES 1
#include "ccurl.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef CURLcode (*fn_global_init)(long);
typedef CURL *(*fn_easy_init)(void);
typedef void (*fn_easy_cleanup)(CURL *);
typedef CURLcode (*fn_easy_setopt)(CURL *, CURLoption, ...);
typedef CURLcode (*fn_easy_getinfo)(CURL *, CURLINFO, ...);
typedef const char *(*fn_easy_strerror)(CURLcode);
typedef CURLM *(*fn_multi_init)(void);
typedef CURLMcode (*fn_multi_add_handle)(CURLM *, CURL *);
typedef CURLMcode (*fn_multi_remove_handle)(CURLM *, CURL *);
typedef CURLMcode (*fn_multi_perform)(CURLM *, int *);
typedef CURLMcode (*fn_multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
typedef CURLMcode (*fn_multi_wakeup)(CURLM *);
typedef CURLMsg *(*fn_multi_info_read)(CURLM *, int *);
typedef CURLMcode (*fn_multi_setopt)(CURLM *, CURLMoption, ...);
typedef CURLMcode (*fn_multi_cleanup)(CURLM *);
typedef struct curl_slist *(*fn_slist_append)(struct curl_slist *, const char *);
typedef void (*fn_slist_free_all)(struct curl_slist *);
typedef CURLcode (*fn_easy_pause)(CURL *, int);
typedef CURLSH *(*fn_share_init)(void);
typedef CURLSHcode (*fn_share_setopt)(CURLSH *, CURLSHoption, ...);
typedef CURLSHcode (*fn_share_cleanup)(CURLSH *);

struct ifc_curl_api {
    fn_global_init global_init;
    fn_easy_init easy_init;
    fn_easy_cleanup easy_cleanup;
    fn_easy_setopt easy_setopt;
    fn_easy_getinfo easy_getinfo;
    fn_easy_strerror easy_strerror;
    fn_multi_init multi_init;
    fn_multi_add_handle multi_add_handle;
    fn_multi_remove_handle multi_remove_handle;
    fn_multi_perform multi_perform;
    fn_multi_poll multi_poll;
    fn_multi_wakeup multi_wakeup;
    fn_multi_info_read multi_info_read;
    fn_multi_setopt multi_setopt;
    fn_multi_cleanup multi_cleanup;
    fn_slist_append slist_append;
    fn_slist_free_all slist_free_all;
    fn_easy_pause easy_pause;
    fn_share_init share_init;
    fn_share_setopt share_setopt;
    fn_share_cleanup share_cleanup;
};

/* The libcurl functions, resolved once by ifc_load (curl_loader.c). */
extern struct ifc_curl_api cu;

/* ---------------------------------------------------------------------------------------------
 * Engine data
 * ------------------------------------------------------------------------------------------- */

/* Cap on the body a tap_only transfer keeps (another status's than 2xx). */
#define TAP_ONLY_KEPT_LIMIT (64LL * 1024)

/* Cap on the pre-allocation from Content-Length when no byte cap was given. */
#define PRESIZE_LIMIT (64LL * 1024 * 1024)

/* The engine's one token bucket (ifc_engine_new's rate_total), loop thread only. `tokens` may go
 * below zero: a piece is taken whole whenever the bucket holds anything, so a piece larger than
 * the bucket still passes, and the debt is paid before the next one. */
typedef struct ifc_bucket {
    double rate;                     /* bytes per second, > 0 */
    double capacity;                 /* the largest burst: a tenth of a second's worth */
    double tokens;
    double refilled_at;              /* CLOCK_MONOTONIC seconds of the last refill */
} ifc_bucket;

/* CLOCK_MONOTONIC in seconds (curl_bucket.c). */
double ifc_monotonic(void);

/* curl_bucket.c (loop thread): */
void ifc_bucket_init(ifc_bucket *b, long long rate);
/* Refills `b` for the time passed; 1 when it holds a token (a piece may be taken). */
int ifc_bucket_ready(ifc_bucket *b);
/* How long until the bucket holds a token again, in ms (1 to 1000). */
int ifc_bucket_wait_ms(const ifc_bucket *b);

typedef struct xfer {
    struct xfer *next;               /* pending queue or running list */
    struct xfer *prev;               /* running list only */
    uint64_t id;
    /* copied request */
    char *url;
    char *host;                      /* the URL's authority, lower-cased: the per-host limit's key */
    char *user_agent;
    char **headers;
    int header_count;
    long connect_timeout_ms;
    long timeout_ms;
    long long max_bytes;
    int max_redirects;
    char *strings[IFC_S_COUNT];
    int insecure;
    long long max_recv_speed;
    long low_speed_limit, low_speed_time;
    void (*tap_data)(void *ctx, const void *data, size_t len);
    void (*tap_end)(void *ctx, int complete);
    void *tap_ctx;
    int tap_broken;                  /* a restarted response after bytes were tapped */
    int tap_only;                    /* a 2xx body is tapped, not kept */
    size_t tapped_len;               /* bytes tapped and not kept (tap_only) */
    int method;                      /* IFC_M_* */
    unsigned char *upload;           /* IFC_M_PUT's body (owned), NULL when empty */
    size_t upload_len;
    unsigned char *deny;             /* the address guard's rules (owned), IFC_DENY_RULE_SIZE each */
    int deny_count;
    char denied[64];                 /* the last address refused (loop thread) */
    struct curl_slist *resolve;      /* CURLOPT_RESOLVE's list */
    ifc_meter *meter;                /* not owned; NULL = none */
    int metered;                     /* the meter knows this response (its Content-Length) */
    int meter_running;               /* counted among the meter's running transfers */
    /* running state (loop thread only) */
    CURL *easy;
    struct curl_slist *slist;
    unsigned char *body;
    size_t body_len, body_cap;
    int presized;
    char *hdr;
    size_t hdr_len, hdr_cap;
    int too_large;
    int oom;
    int (*watch)(void *ctx, const void *data, size_t len);   /* ifc_request.watch; NULL once it needs no more */
    void *watch_ctx;
    int (*headers_check)(void *ctx, const char *headers);   /* ifc_request.headers_check */
    void *headers_check_ctx;
    int stopped;                     /* the watcher (or the headers' check) stopped the transfer */
    ifc_bucket *bucket;              /* the engine's, when it has a rate_total; else NULL */
    int paused;                      /* the write callback returned CURL_WRITEFUNC_PAUSE */
    int cookies;                     /* uses the engine's cookie share (ifc_request.cookies) */
    long long range_from;            /* ifc_request.range_from */
    long (*start_wait)(void *ctx);   /* ifc_request's origin gate; NULL = none */
    void (*answered)(void *ctx, long status);
    void *gate_ctx;
    double not_before;               /* monotonic seconds: the gate is not asked again before then */
    char errbuf[CURL_ERROR_SIZE];
} xfer;

/* curl_meter.c (loop thread): counts `n` body bytes of `x`'s response on its meter, if any. */
void ifc_meter_count(xfer *x, size_t n);
/* Counts `x` among its meter's running transfers (running = 1, once) or no longer (0, once). */
void ifc_meter_running(xfer *x, int running);

/* curl_transfer.c (loop thread): */
/* Ends the tap of `x`, once. */
void ifc_tap_end(xfer *x, int complete);
/* Frees `x` (ending its tap, incomplete, if still open). */
void ifc_xfer_free(xfer *x);
/* Creates the easy handle of `x`, adds it to the multi handle and to the running list; on failure,
 * finishes it. */
void ifc_start(ifc_engine *e, xfer *x);
/* Builds the result of `x` (in no list any more), queues it on the done list and frees `x`.
 * `attached`: x->easy is in the multi handle (its info is read, then it is removed). */
void ifc_finish(ifc_engine *e, xfer *x, int code, const char *message, int attached);
/* curl_engine.c: */
void ifc_running_unlink(ifc_engine *e, xfer *x);
/* curl_bucket.c: unpauses paused transfers while the engine's bucket holds tokens; the number
 * still paused. */
int ifc_unpause_ready(ifc_engine *e);

typedef struct done_node {
    struct done_node *next;
    ifc_result r;
} done_node;

typedef struct cancel_node {
    struct cancel_node *next;
    uint64_t id;
} cancel_node;

struct ifc_engine {
    pthread_mutex_t lock;
    /* protected by lock */
    xfer *pending_head, *pending_tail;
    int pending_count;
    cancel_node *cancels;
    int closed;                 /* ifc_engine_cancel_all was called: abort everything, start nothing */
    uint64_t next_id;
    long max_total, max_per_host;    /* transfers at once (0 = no limit), set at creation */
    /* loop thread only */
    CURLM *multi;
    xfer *running;
    int running_count;
    /* Queued here, not inside libcurl, until a transfer slot (and a slot for its host) is free:
     * libcurl's CURLOPT_TIMEOUT counts from curl_multi_add_handle, so a transfer waiting inside
     * libcurl for a connection would spend its --timeout without being sent. */
    xfer *waiting_head, *waiting_tail;
    int waiting_count;
    done_node *done_head, *done_tail;
    int has_bucket;                  /* rate_total > 0: every transfer takes from `bucket` */
    ifc_bucket bucket;
    unsigned long unpause_turn;      /* which paused transfer is unpaused first (round robin) */
    /* ifc_engine_use_cookies: set before the first transfer, then only read. The share is used
     * by the loop thread's handles and by ifc_engine_cookie_list on any thread: libcurl takes
     * cookie_lock around every use (CURLSHOPT_LOCKFUNC). */
    CURLSH *share;
    pthread_mutex_t cookie_lock;
};

/* Transfer callbacks (curl_callbacks.c), called on the loop thread. */
size_t ifc_write_cb(char *ptr, size_t size, size_t nmemb, void *userdata);
size_t ifc_header_cb(char *buffer, size_t size, size_t nitems, void *userdata);
/* CURLOPT_OPENSOCKETFUNCTION of a transfer with an address guard (clientp: its xfer). */
curl_socket_t ifc_opensocket_cb(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);

#endif
