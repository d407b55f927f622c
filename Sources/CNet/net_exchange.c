/* net_exchange.c: see cnet.h. One detached thread per exchange; blocking-free sockets waited on with
 * poll() against a deadline and an eventfd that ifn_exchange_cancel writes to. The handle is shared
 * by the thread and the caller (a reference count of two); the last to let go frees it. */
#define _GNU_SOURCE
#include "cnet.h"

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct ifn_exchange {
    atomic_int refs;
    atomic_int cancelled;
    int wake_fd;                       /* eventfd: written by cancel, polled beside the socket */
    char *host, *port;
    unsigned char *request;
    size_t request_len, max_response;
    long connect_timeout_ms, timeout_ms;
    void (*done)(void *ctx);
    void *ctx;
    /* The most body bytes wanted (ifn_exchange_limit_body; SIZE_MAX: none) and where the head the
     * body follows ends; limit_fd wakes a receive waiting when the limit is lowered. */
    atomic_size_t max_body;
    int limit_fd;
    size_t head_start, scan_from, body_start;
    int head_found, has_length;
    unsigned long long content_length;
    /* the result, written by the thread before done */
    int code;
    unsigned char *bytes;
    size_t len;
    char err[160];
};

static void xfree(ifn_exchange *x) {
    if (x->wake_fd >= 0) close(x->wake_fd);
    if (x->limit_fd >= 0) close(x->limit_fd);
    free(x->host);
    free(x->port);
    free(x->request);
    free(x->bytes);
    free(x);
}

void ifn_exchange_release(ifn_exchange *x) {
    if (x != NULL && atomic_fetch_sub(&x->refs, 1) == 1) xfree(x);
}

void ifn_exchange_cancel(ifn_exchange *x) {
    if (x == NULL) return;
    atomic_store(&x->cancelled, 1);
    uint64_t one = 1;
    ssize_t w = write(x->wake_fd, &one, sizeof one);
    (void)w;   /* a full counter already wakes the poll */
}

void ifn_exchange_limit_body(ifn_exchange *x, size_t max_body) {
    if (x == NULL) return;
    size_t current = atomic_load(&x->max_body);
    while (max_body < current && !atomic_compare_exchange_weak(&x->max_body, &current, max_body)) {}
    uint64_t one = 1;
    ssize_t w = write(x->limit_fd, &one, sizeof one);
    (void)w;
}

int ifn_exchange_result(ifn_exchange *x, const unsigned char **bytes, size_t *len, char *err, size_t errlen) {
    if (bytes) *bytes = x->bytes;
    if (len) *len = x->len;
    if (err && errlen > 0) snprintf(err, errlen, "%s", x->err);
    return x->code;
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int fail(ifn_exchange *x, int code, const char *message) {
    x->code = code;
    snprintf(x->err, sizeof x->err, "%s", message);
    return code;
}

/* A descriptor could not be made: EMFILE or ENFILE is named as such, anything else as `other`. */
static int fail_descriptor(ifn_exchange *x, int error, int code, const char *other) {
    if (error == EMFILE || error == ENFILE) return fail(x, IFN_E_NOFILE, "too many open files");
    return fail(x, code, other);
}

/* Waits until fd is ready for `events` or the deadline passes or the exchange is cancelled (or,
 * with `on_limit`, the body limit was lowered: IFN_OK, for the caller to look again).
 * Returns IFN_OK, IFN_E_TIMEOUT, IFN_E_CANCELLED or IFN_E_IO. */
static int wait_for_limit(ifn_exchange *x, int fd, short events, long long deadline, int on_limit) {
    for (;;) {
        if (atomic_load(&x->cancelled)) return fail(x, IFN_E_CANCELLED, "cancelled");
        long long left = deadline - now_ms();
        if (left <= 0) return fail(x, IFN_E_TIMEOUT, "timed out");
        struct pollfd p[3] = { { .fd = fd, .events = events }, { .fd = x->wake_fd, .events = POLLIN },
                               { .fd = on_limit ? x->limit_fd : -1, .events = POLLIN } };
        int n = poll(p, 3, left > 60000 ? 60000 : (int)left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(x, IFN_E_IO, "poll failed");
        }
        if (p[1].revents != 0) return fail(x, IFN_E_CANCELLED, "cancelled");
        if (p[2].revents != 0) {
            uint64_t count;
            ssize_t r = read(x->limit_fd, &count, sizeof count);
            (void)r;
            return IFN_OK;
        }
        if (p[0].revents != 0) return IFN_OK;
    }
}

static int wait_for(ifn_exchange *x, int fd, short events, long long deadline) {
    return wait_for_limit(x, fd, events, deadline, 0);
}

/* The Content-Length of the head bytes[0..len) (the largest when it is given twice), or 0 with
 * *has = 0 when there is none that is a number. */
static unsigned long long head_length(const unsigned char *h, size_t len, int *has) {
    unsigned long long best = 0;
    *has = 0;
    for (size_t i = 0; i + 2 < len; i++) {
        if (h[i] != '\n') continue;
        const unsigned char *line = h + i + 1;
        size_t left = len - (i + 1);
        if (left < 15 || strncasecmp((const char *)line, "content-length:", 15) != 0) continue;
        size_t j = 15;
        while (j < left && (line[j] == ' ' || line[j] == '\t')) j++;
        if (j >= left || line[j] < '0' || line[j] > '9') continue;
        unsigned long long v = 0;
        for (; j < left && line[j] >= '0' && line[j] <= '9'; j++) v = v > ULLONG_MAX / 10 - 1 ? ULLONG_MAX : v * 10 + (unsigned)(line[j] - '0');
        if (!*has || v > best) best = v;
        *has = 1;
    }
    return best;
}

/* Finds where the final head ends (interim 1xx heads skipped) in what has arrived. */
static void find_head(ifn_exchange *x) {
    while (!x->head_found) {
        size_t from = x->scan_from >= x->head_start + 3 ? x->scan_from - 3 : x->head_start;
        if (x->len < from + 4) { x->scan_from = x->len; return; }
        const unsigned char *end = memmem(x->bytes + from, x->len - from, "\r\n\r\n", 4);
        if (end == NULL) { x->scan_from = x->len; return; }
        size_t head_end = (size_t)(end - x->bytes) + 4;
        const unsigned char *h = x->bytes + x->head_start;
        size_t hl = head_end - x->head_start;
        if (hl >= 10 && memcmp(h, "HTTP/", 5) == 0 && h[8] == ' ' && h[9] == '1') {
            x->head_start = x->scan_from = head_end;   /* 100 Continue, 103 Early Hints, ... */
            continue;
        }
        x->head_found = 1;
        x->body_start = head_end;
        x->content_length = head_length(h, hl, &x->has_length);
    }
}

/* Whether the answer is over the body limit: its head announces more, or more has come. A body
 * without a length (chunked, or up to the close) may carry framing: it gets twice the limit and
 * 64 KiB more. */
static int over_body_limit(ifn_exchange *x) {
    size_t max_body = atomic_load(&x->max_body);
    if (max_body == SIZE_MAX) return 0;
    find_head(x);
    if (!x->head_found) return 0;
    if (x->has_length && x->content_length > max_body) return 1;
    size_t body = x->len - x->body_start;
    if (body <= max_body) return 0;
    return x->has_length || body - max_body > max_body + 65536;
}

/* A name resolution on a thread of its own, so that the exchange can stop waiting for it (at the
 * deadline, on cancel) while getaddrinfo goes on: the job is shared by both (a reference count of
 * two); the last to let go frees it. */
struct lookup {
    atomic_int refs;
    atomic_int finished;   /* set (after rc and list) before fd is written */
    int fd;                /* eventfd written when getaddrinfo has returned */
    char *host, *port;
    int rc;
    struct addrinfo *list;
};

static void lookup_release(struct lookup *l) {
    if (atomic_fetch_sub(&l->refs, 1) != 1) return;
    if (l->list != NULL) freeaddrinfo(l->list);
    if (l->fd >= 0) close(l->fd);
    free(l->host);
    free(l->port);
    free(l);
}

static int getaddrinfo_stream(const char *host, const char *port, int flags, struct addrinfo **list) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;   /* every address family, as curl: a refused ::1 falls through to 127.0.0.1 */
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | flags;
    return getaddrinfo(host, port, &hints, list);
}

static void *lookup_run(void *arg) {
    struct lookup *l = arg;
    l->rc = getaddrinfo_stream(l->host, l->port, 0, &l->list);
    atomic_store(&l->finished, 1);
    uint64_t one = 1;
    ssize_t w = write(l->fd, &one, sizeof one);
    (void)w;
    lookup_release(l);
    return NULL;
}

/* The addresses of the host (an IP literal at once, a name on a thread of its own, waited for until
 * the deadline or a cancel); IFN_OK or the failure, set in x. */
static int resolve(ifn_exchange *x, long long deadline, struct addrinfo **list) {
    *list = NULL;
    int rc = getaddrinfo_stream(x->host, x->port, AI_NUMERICHOST, list);
    if (rc == EAI_NONAME) {
        struct lookup *l = calloc(1, sizeof *l);
        if (l == NULL) return fail(x, IFN_E_NOMEM, "out of memory");
        l->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        l->host = strdup(x->host);
        l->port = strdup(x->port);
        atomic_init(&l->refs, 2);
        atomic_init(&l->finished, 0);
        pthread_attr_t attr;
        pthread_t thread;
        int started = -1;
        if (l->fd >= 0 && l->host != NULL && l->port != NULL && pthread_attr_init(&attr) == 0) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&attr, 256 * 1024);
            started = pthread_create(&thread, &attr, lookup_run, l);
            pthread_attr_destroy(&attr);
        }
        if (started != 0) {
            int error = l->fd < 0 ? errno : 0;
            atomic_store(&l->refs, 1);
            lookup_release(l);
            return fail_descriptor(x, error, IFN_E_NOMEM, "could not start the name resolution");
        }
        int w = wait_for(x, l->fd, POLLIN, deadline);
        if (w == IFN_OK && atomic_load(&l->finished)) {
            rc = l->rc;
            *list = l->list;
            l->list = NULL;
        }
        lookup_release(l);
        if (w != IFN_OK) return w == IFN_E_TIMEOUT ? fail(x, IFN_E_TIMEOUT, "timed out resolving the host") : w;
    }
    if (rc != 0 || *list == NULL) {
        if (*list != NULL) freeaddrinfo(*list);
        *list = NULL;
        return fail(x, IFN_E_RESOLVE, "cannot resolve the host");
    }
    return IFN_OK;
}

/* Connects to the first address that accepts; the socket or -1 with x->code set. */
static int connect_any(ifn_exchange *x, long long deadline) {
    struct addrinfo *list = NULL;
    if (resolve(x, deadline, &list) != IFN_OK) return -1;
    int fd = -1;
    fail(x, IFN_E_CONNECT, "connection refused");
    for (struct addrinfo *a = list; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            /* Not "connection refused": nothing was tried. */
            fail_descriptor(x, errno, IFN_E_IO, "could not create a socket");
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS) {
            long long attempt = now_ms() + x->connect_timeout_ms;
            int w = wait_for(x, fd, POLLOUT, attempt < deadline ? attempt : deadline);
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (w == IFN_OK && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0) break;
            if (w == IFN_E_CANCELLED || (w == IFN_E_TIMEOUT && now_ms() >= deadline)) {
                close(fd);
                freeaddrinfo(list);
                return -1;
            }
            if (w == IFN_E_TIMEOUT) fail(x, IFN_E_TIMEOUT, "timed out connecting");
            else if (w == IFN_OK) fail(x, soerr == ECONNREFUSED ? IFN_E_CONNECT : IFN_E_IO,
                                       soerr == ECONNREFUSED ? "connection refused" : "could not connect");
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(list);
    if (fd >= 0) {
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        x->code = IFN_OK;
        x->err[0] = 0;
    }
    return fd;
}

static int send_all(ifn_exchange *x, int fd, long long deadline) {
    size_t sent = 0;
    while (sent < x->request_len) {
        ssize_t n = send(fd, x->request + sent, x->request_len - sent, MSG_NOSIGNAL);
        if (n > 0) { sent += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = wait_for(x, fd, POLLOUT, deadline);
            if (w != IFN_OK) return w;
            continue;
        }
        return fail(x, IFN_E_IO, "connection lost while sending");
    }
    return IFN_OK;
}

static int recv_all(ifn_exchange *x, int fd, long long deadline) {
    size_t cap = 16384;
    /* The buffer grows to one byte more than max_response (seeing that byte is "too large"); no
     * size here may wrap, whatever max_response is (SIZE_MAX included). */
    size_t limit = x->max_response < SIZE_MAX ? x->max_response + 1 : SIZE_MAX;
    x->bytes = malloc(cap);
    if (x->bytes == NULL) return fail(x, IFN_E_NOMEM, "out of memory");
    for (;;) {
        if (over_body_limit(x)) return fail(x, IFN_E_TOO_LARGE, "response too large");
        if (x->len == cap) {
            if (cap >= limit) return fail(x, IFN_E_TOO_LARGE, "response too large");
            size_t next = cap <= limit / 2 ? cap * 2 : limit;
            unsigned char *grown = realloc(x->bytes, next);
            if (grown == NULL) return fail(x, IFN_E_NOMEM, "out of memory");
            x->bytes = grown;
            cap = next;
        }
        ssize_t n = recv(fd, x->bytes + x->len, cap - x->len, 0);
        if (n > 0) {
            x->len += (size_t)n;
            if (x->len > x->max_response) return fail(x, IFN_E_TOO_LARGE, "response too large");
            continue;
        }
        if (n == 0) return IFN_OK;   /* the server closed the connection: the answer is whole */
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int w = wait_for_limit(x, fd, POLLIN, deadline, 1);
            if (w != IFN_OK) return w;
            continue;
        }
        return fail(x, IFN_E_IO, "connection lost while receiving");
    }
}

static void *run(void *arg) {
    ifn_exchange *x = arg;
    long long deadline = now_ms() + x->timeout_ms;
    int fd = connect_any(x, deadline);
    if (fd >= 0) {
        if (send_all(x, fd, deadline) == IFN_OK) (void)recv_all(x, fd, deadline);
        close(fd);
    }
    /* What was read stays readable after a reset (a complete answer may precede it) and after
     * "too large" (its head says the status); nothing after a timeout or a cancel. */
    if (x->code != IFN_OK && x->code != IFN_E_IO && x->code != IFN_E_TOO_LARGE) x->len = 0;
    x->done(x->ctx);
    ifn_exchange_release(x);
    return NULL;
}

ifn_exchange *ifn_exchange_start(const char *host, const char *port, const void *request, size_t request_len,
                                 size_t max_response, long connect_timeout_ms, long timeout_ms,
                                 void (*done)(void *ctx), void *ctx) {
    if (host == NULL || port == NULL || request == NULL || done == NULL || connect_timeout_ms <= 0 || timeout_ms <= 0)
        return NULL;
    ifn_exchange *x = calloc(1, sizeof *x);
    if (x == NULL) return NULL;
    x->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    x->limit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    atomic_init(&x->max_body, SIZE_MAX);
    x->host = strdup(host);
    x->port = strdup(port);
    x->request = malloc(request_len > 0 ? request_len : 1);
    if (x->wake_fd < 0 || x->limit_fd < 0 || x->host == NULL || x->port == NULL || x->request == NULL) {
        int error = (x->wake_fd < 0 || x->limit_fd < 0) ? errno : ENOMEM;
        xfree(x);
        errno = error;   /* for the caller: EMFILE is told apart */
        return NULL;
    }
    memcpy(x->request, request, request_len);
    x->request_len = request_len;
    x->max_response = max_response;
    x->connect_timeout_ms = connect_timeout_ms;
    x->timeout_ms = timeout_ms;
    x->done = done;
    x->ctx = ctx;
    atomic_init(&x->refs, 2);
    atomic_init(&x->cancelled, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t thread;
    int rc = pthread_create(&thread, &attr, run, x);
    pthread_attr_destroy(&attr);
    if (rc != 0) { xfree(x); errno = rc; return NULL; }
    return x;
}
