/* ccurl.h: a small transfer engine over the libcurl *multi* interface.
 *
 * libcurl is NOT linked: ifc_load() resolves it with dlopen("libcurl.so.4") on first use, so a
 * process that never downloads (a cache hit) never pays its loading cost.
 * All curl handles live inside the engine and are only touched by the thread that calls
 * ifc_engine_run_once(); ifc_engine_add / ifc_engine_cancel / ifc_engine_cancel_all are thread-safe
 * (a mutex + curl_multi_wakeup). The CCurl sources are the only places curl is used.
 */
#ifndef CCURL_H
#define CCURL_H
#include <stddef.h>
#include <stdint.h>

typedef struct ifc_engine ifc_engine;

/* A progress meter that transfers write and any thread reads (relaxed atomics): what a progress
 * line shows while a download runs. One meter may serve many transfers (see ifc_meter_read). */
typedef struct ifc_meter ifc_meter;
ifc_meter *ifc_meter_new(void);
void ifc_meter_free(ifc_meter *m);
/* total: body bytes every transfer of the meter received so far (only grows); current: of the
 * response that wrote last, its body bytes so far and its Content-Length (-1 when not sent);
 * running: its transfers in libcurl now (started, not finished; queued ones are not counted). */
void ifc_meter_read(const ifc_meter *m, long long *total, long long *current, long long *expected, int *running);

/* Optional string settings of a request (ifc_request.strings), NULL = libcurl's default. */
enum {
    IFC_S_CAINFO = 0,     /* CURLOPT_CAINFO: a CA bundle file */
    IFC_S_CAPATH,         /* CURLOPT_CAPATH: a hashed CA directory */
    IFC_S_PROXY,          /* CURLOPT_PROXY; NULL = libcurl reads http_proxy/https_proxy/all_proxy */
    IFC_S_NOPROXY,        /* CURLOPT_NOPROXY; NULL = libcurl reads no_proxy */
    IFC_S_USERPWD,        /* CURLOPT_USERPWD "user:password" (Basic; never sent to another host) */
    IFC_S_NETRC_FILE,     /* CURLOPT_NETRC_FILE, with CURLOPT_NETRC = CURL_NETRC_REQUIRED */
    IFC_S_AWS_SIGV4,      /* CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3"), signing with IFC_S_USERPWD "KEY:SECRET"
                           * instead of Basic authentication */
    IFC_S_RESOLVE,        /* CURLOPT_RESOLVE: "HOST:PORT:ADDR" entries, one a line ('\n'-separated) */
    IFC_S_COUNT
};

/* The request method (ifc_request.method). */
enum {
    IFC_M_GET = 0,        /* the default */
    IFC_M_HEAD,           /* CURLOPT_NOBODY: no body is read */
    IFC_M_PUT             /* the in-memory body `upload` (Content-Length set; no `Expect: 100-continue`
                           * unless signed with IFC_S_AWS_SIGV4, see curl_transfer.c) */
};

/* One request. Every pointer is copied by ifc_engine_add; the caller may free it afterwards. */
typedef struct {
    const char *url;
    const char *user_agent;          /* "imgfetch/VERSION" */
    const char *const *headers;      /* extra request headers, "Name: value" */
    int header_count;
    long connect_timeout_ms;         /* 0 = curl default */
    long timeout_ms;                 /* total, 0 = none */
    long long max_bytes;             /* byte cap on the body, 0 = none; holds without Content-Length */
    int max_redirects;               /* followed by libcurl (http/https only); 0 = not followed */
    const char *strings[IFC_S_COUNT];/* see IFC_S_*; NULL = not set */
    int insecure;                    /* 1: no peer or host name verification (-k) */
    long long max_recv_speed;        /* bytes/s cap on the download, 0 = none */
    long low_speed_limit;            /* with low_speed_time: abort (28) below this many bytes/s ... */
    long low_speed_time;             /* ... for this many seconds; 0 = never */
    /* Optional tap on the body as it arrives (for decoding while downloading), called on the loop
     * thread: tap_data for each piece of the final response's body if it is a 2xx one, in order
     * (a body of any other status ends the tap incomplete); tap_end exactly once
     * when the transfer ends, with complete = 1 only when every byte of a completed transfer went
     * through tap_data (0 on failure, cancellation, or a response restarted after bytes were tapped).
     * Both must return quickly. tap_end is also called when ifc_engine_add fails. */
    void (*tap_data)(void *ctx, const void *data, size_t len);
    void (*tap_end)(void *ctx, int complete);
    void *tap_ctx;
    int tap_only;                    /* 1: a 2xx body goes to the tap only, never into the result's
                                      * body (any size in bounded memory; max_bytes still caps it);
                                      * another status's body is kept, at most 64 KiB of it */
    int method;                      /* IFC_M_*; 0 = GET */
    const unsigned char *upload;     /* IFC_M_PUT: the body (copied), may be NULL when upload_len == 0 */
    size_t upload_len;
    /* The address guard: deny_count rules of IFC_DENY_RULE_SIZE bytes each (copied): byte 0 the
     * family (4 or 6), byte 1 the prefix length, bytes 2-17 the address (an IPv4 one in 2-5). Every
     * address libcurl is about to connect to (CURLOPT_OPENSOCKETFUNCTION, the proxy's when one
     * is used) is checked, an IPv4-mapped IPv6 address as its IPv4 one; a match is not connected
     * to (libcurl tries the host's next address, else fails with COULDNT_CONNECT) and the result's
     * `denied` names it. */
    const unsigned char *deny;
    int deny_count;
    long long range_from;            /* > 0: ask for the body from this byte on (CURLOPT_RANGE "N-"; the
                                      * caller adds If-Range); a tap then takes only a 206's body */
    int cookies;                     /* 1: the transfer uses the engine's cookies (ifc_engine_use_cookies):
                                      * sends those that match it, keeps what Set-Cookie says */
    ifc_meter *meter;                /* NULL = none; else written on the loop thread as the body
                                      * arrives; it must outlive the transfer */
    /* Optional watcher of a kept 2xx body (not tap_only), called on the loop thread with each piece
     * after it is kept: 0 goes on, 1 stops the transfer (the result's `stopped`: its own reason, not
     * an error of the transfer; the body holds what came), 2 means it needs no more pieces. It must
     * outlive the transfer and return quickly. */
    int (*watch)(void *ctx, const void *data, size_t len);
    void *watch_ctx;
    /* Optional check of a 2xx response's headers, called on the loop thread once its header block
     * has arrived whole, before any of its body, with the lines joined by "\n": 1 stops the
     * transfer (the result's `stopped`, no body), 0 goes on. It must outlive the transfer and
     * return quickly. */
    int (*headers_check)(void *ctx, const char *headers);
    void *headers_check_ctx;
    /* Optional origin gate, called on the loop thread: start_wait right before the transfer would
     * start (a transfer slot and one for its host are free): 0 starts it now, > 0 is how many
     * milliseconds it waits before the gate is asked again (in the engine, not in libcurl: its
     * timeouts not started, holding back no other transfer, cancellable); answered once when a
     * started transfer ends, with its final HTTP status (0: none), before any other transfer
     * starts. Both must return quickly; gate_ctx must outlive the transfer. */
    long (*start_wait)(void *ctx);
    void (*answered)(void *ctx, long status);
    void *gate_ctx;
} ifc_request;

#define IFC_DENY_RULE_SIZE 18

/* Whether the guard's `count` rules deny `addr` (4 bytes for `family` 4, 16 for 6): by the address
 * itself, or for an IPv6 address that embeds an IPv4 one (NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
 * 6to4 2002::/16, IPv4-compatible ::/96) by that IPv4 address too. */
int ifc_address_denied(const unsigned char *rules, int count, int family, const unsigned char *addr);

/* One finished transfer. Owned by the caller after ifc_engine_next_done: release with ifc_result_free. */
typedef struct {
    uint64_t id;
    int curl_code;                   /* CURLcode, 0 = transfer completed (any HTTP status) */
    long http_status;                /* final response status, 0 if none */
    int too_large;                   /* 1 when the byte cap aborted the transfer */
    int stopped;                     /* 1 when the request's watcher stopped it (curl_code is then
                                      * CURLE_WRITE_ERROR, but the transfer is not a failure) */
    unsigned char *body;             /* malloc'd, may be NULL when body_len == 0 */
    size_t body_len;
    char *headers;                   /* malloc'd, the final response's header lines joined by "\n" (no status line) */
    char *effective_url;             /* malloc'd */
    long redirects;
    long long download_bytes;
    char error[256];                 /* curl's error text when curl_code != 0 */
    char denied[64];                 /* the last address the guard refused (ifc_request.deny), "" = none */
    /* libcurl's cumulative times of the transfer, microseconds since it started (CURLINFO_*_TIME_T;
     * 0 = that point was not reached): name resolved, connected, TLS done (appconnect),
     * first byte (starttransfer), and the whole transfer. */
    long long t_dns, t_connect, t_tls, t_first_byte, t_total;
} ifc_result;

/* CURLcode values the Swift side classifies (stable in curl's ABI). */
enum {
    IFC_E_UNSUPPORTED_PROTOCOL = 1, IFC_E_URL_MALFORMAT = 3, IFC_E_COULDNT_RESOLVE_PROXY = 5,
    IFC_E_COULDNT_RESOLVE_HOST = 6, IFC_E_COULDNT_CONNECT = 7, IFC_E_PARTIAL_FILE = 18,
    IFC_E_WRITE_ERROR = 23, IFC_E_OPERATION_TIMEDOUT = 28, IFC_E_ABORTED_BY_CALLBACK = 42,
    IFC_E_TOO_MANY_REDIRECTS = 47, IFC_E_GOT_NOTHING = 52, IFC_E_SEND_ERROR = 55, IFC_E_RECV_ERROR = 56,
    IFC_E_SSL_CONNECT_ERROR = 35, IFC_E_PEER_FAILED_VERIFICATION = 60, IFC_E_FILESIZE_EXCEEDED = 63,
    IFC_E_HTTP2 = 16, IFC_E_HTTP2_STREAM = 92,
    IFC_E_SSL_CERTPROBLEM = 58, IFC_E_SSL_CACERT_BADFILE = 77, IFC_E_PROXY = 97
};

/* dlopen libcurl and curl_global_init, once, thread-safe (a mutex). 0 on success, else writes a
 * message. A failure for want of descriptors (EMFILE, ENFILE) is retried (three times, 10-40 ms
 * apart) and, when it lasts, not kept: the next call loads again. Any other failure is kept. */
int ifc_load(char *err, size_t errlen);

/* What `imgfetch --version` reports of the libcurl found: its version and TLS library (into the
 * buffers), whether it speaks HTTP/2 and HTTP/3 (1 or 0). Loads libcurl (ifc_load); -1 (with err)
 * when it cannot. */
int ifc_version(char *version, size_t version_len, char *ssl, size_t ssl_len, int *http2, int *http3,
                char *err, size_t errlen);
/* max_total: transfers at once; max_per_host: transfers at once per host (by the request URL's
 * authority); 0 = unlimited. Both also cap libcurl's connections. Transfers beyond them wait in the
 * engine, not in libcurl, so their timeouts start only when they are sent.
 * rate_total: bytes per second of response data across every transfer of the engine together
 * (0 = none): one token bucket, taken from in the write callback; a transfer that finds it empty
 * is paused (CURL_WRITEFUNC_PAUSE: libcurl stops reading its socket and delivers the same data
 * again) and unpaused by the loop thread (curl_easy_pause) once the bucket has refilled. A paused
 * transfer's CURLOPT_TIMEOUT keeps running. */
ifc_engine *ifc_engine_new(long max_total, long max_per_host, long long rate_total);
void ifc_engine_free(ifc_engine *e);
/* One cookie engine for every transfer of `e` with ifc_request.cookies (a libcurl share of
 * CURL_LOCK_DATA_COOKIE, locked by a mutex of the engine's), holding at first the Netscape
 * cookie-file `lines` ('\n'-separated; NULL or "" for none). libcurl reads no cookie file and
 * writes no jar itself (CURLOPT_COOKIEJAR is never set). Call once, before the first
 * ifc_engine_add; 0 on success. */
int ifc_engine_use_cookies(ifc_engine *e, const char *lines);
/* Every cookie the engine holds now, as Netscape cookie-file lines each ended by '\n' (malloc'd:
 * free() it); NULL when ifc_engine_use_cookies was not called or memory ran out. Thread-safe. */
char *ifc_engine_cookie_list(ifc_engine *e);
/* Queue a request (thread-safe); returns its id (> 0), 0 on failure. Wakes the loop. */
uint64_t ifc_engine_add(ifc_engine *e, const ifc_request *r);
/* Abort a queued or running request (thread-safe); it completes with ABORTED_BY_CALLBACK. */
void ifc_engine_cancel(ifc_engine *e, uint64_t id);
/* Abort every queued and running request at once and every request added later (thread-safe).
 * All are removed in one pass of the loop, so a freed connection slot never starts a queued
 * transfer: the interrupt of a batch sends no new request. */
void ifc_engine_cancel_all(ifc_engine *e);
/* Loop thread only: add queued requests, perform, wait up to timeout_ms for activity or a wakeup.
 * Returns the number of transfers still running or queued. */
int ifc_engine_run_once(ifc_engine *e, int timeout_ms);
/* Loop thread only: pop one finished transfer into *out; 1 if one was written, 0 if none. */
int ifc_engine_next_done(ifc_engine *e, ifc_result *out);
void ifc_result_free(ifc_result *r);

#endif
