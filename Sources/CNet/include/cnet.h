/* cnet.h: one plain HTTP/1.1 exchange over TCP, on a thread of its own: connect, send the request
 * whole, read everything the server sends until it closes the connection. No parsing here (the
 * request is sent with "Connection: close"; DirectHTTPResponse.swift parses what comes back).
 *
 * It lets the remote cache tier GET objects from a plain http:// store without loading libcurl
 * (a large part of a short process's start; see the README's figures). Every wait is bounded by the timeouts, every byte read by
 * max_response. A host name is resolved by the system resolver (getaddrinfo) on a thread of its own,
 * waited for until the deadline or a cancel (then left to finish alone); an IP literal at once.
 */
#ifndef CNET_H
#define CNET_H
#include <stddef.h>

typedef struct ifn_exchange ifn_exchange;

/* Result codes of ifn_exchange_result. */
enum {
    IFN_OK = 0,          /* the server closed the connection after sending its answer */
    IFN_E_RESOLVE,       /* the host name could not be resolved */
    IFN_E_CONNECT,       /* no address of the host accepted the connection */
    IFN_E_TIMEOUT,       /* the connect or the whole exchange took too long */
    IFN_E_IO,            /* sending or receiving failed (connection reset, ...) */
    IFN_E_TOO_LARGE,     /* the server sent more than max_response bytes */
    IFN_E_CANCELLED,     /* ifn_exchange_cancel was called */
    IFN_E_NOMEM,         /* out of memory */
    IFN_E_NOFILE         /* no descriptor left (EMFILE, ENFILE): "too many open files" */
};

/* Starts the exchange on a new detached thread and returns its handle, or NULL when no thread could
 * be started, no descriptor is left or memory is short (done is then never called; errno says why:
 * EMFILE or ENFILE, EAGAIN, ENOMEM). host: a name or an IP literal without
 * brackets; port: decimal. The request bytes are copied. connect_timeout_ms bounds each connection
 * attempt, timeout_ms the whole exchange (both > 0). done(ctx) is called exactly once, on the
 * exchange's thread, when it has ended; the handle stays valid until ifn_exchange_release. */
ifn_exchange *ifn_exchange_start(const char *host, const char *port, const void *request, size_t request_len,
                                 size_t max_response, long connect_timeout_ms, long timeout_ms,
                                 void (*done)(void *ctx), void *ctx);

/* Lowers the most body bytes the answer may have (thread-safe, any time before ifn_exchange_release;
 * a limit is never raised; none at first): once the head (after any 1xx ones) is in, an answer whose
 * Content-Length is larger, or whose body grows larger (twice the limit and 64 KiB more without a
 * Content-Length, for chunk framing), ends at once with IFN_E_TOO_LARGE, its bytes so far kept. */
void ifn_exchange_limit_body(ifn_exchange *x, size_t max_body);
/* Ends the exchange early (thread-safe, any time before ifn_exchange_release): its result becomes
 * IFN_E_CANCELLED unless it has already ended (a name resolution in progress is not waited for). */
void ifn_exchange_cancel(ifn_exchange *x);

/* After done: the result code; *bytes and *len: what the server sent (valid until release): the whole
 * answer after IFN_OK, what came before the failure after IFN_E_IO (a server may reset the connection
 * after a complete answer) and IFN_E_TOO_LARGE (more than max_response bytes), nothing after any other
 * failure; a message for the failure in err (never the server's bytes). */
int ifn_exchange_result(ifn_exchange *x, const unsigned char **bytes, size_t *len, char *err, size_t errlen);

/* Gives up the caller's hold on the handle (once, after done was called). */
void ifn_exchange_release(ifn_exchange *x);

#endif
