/* cnet_stress.c: CNet's exchange (Sources/CNet) under threads, cancels and lowered limits, for the
 * sanitizers (scripts/cnet-stress.sh builds it with -fsanitize=thread and with address,undefined).
 *
 * A server thread on 127.0.0.1 answers each connection after a random delay (0-20 ms) with a
 * Content-Length answer, a close-delimited one, or a reset; WORKERS threads each run ROUNDS exchanges,
 * to the IP literal or to "localhost" (the resolver thread's path), and at random cancel before the
 * end, cancel after it, lower the body limit while it runs, or let it finish. Every exchange must end
 * (done called once) with a known code, and its handle be released. Exits 0, or 1 with a message.
 * Bounded: WORKERS x ROUNDS exchanges, each at most 2 s. Talks to 127.0.0.1 only. */
#include "cnet.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 8
#define ROUNDS 150

static int listener;
static atomic_int stopping;
static atomic_int served;

static unsigned next_random(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

static void *serve_one(void *arg) {
    int fd = (int)(long)arg;
    unsigned seed = (unsigned)fd * 2654435761u;
    char buf[2048];
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t n = read(fd, buf + got, sizeof buf - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
        buf[got] = 0;
        if (strstr(buf, "\r\n\r\n")) break;
    }
    struct timespec delay = {0, (long)(next_random(&seed) % 20) * 1000000L};
    nanosleep(&delay, NULL);
    static const char body[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    char answer[512];
    switch (next_random(&seed) % 3) {
    case 0:
        snprintf(answer, sizeof answer, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
        break;
    case 1:
        snprintf(answer, sizeof answer, "HTTP/1.0 200 OK\r\n\r\n%s%s", body, body);
        break;
    default: {
        struct linger reset = {1, 0};   /* a reset instead of an answer */
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        answer[0] = 0;
    }
    }
    if (answer[0]) { ssize_t w = write(fd, answer, strlen(answer)); (void)w; }
    close(fd);
    atomic_fetch_add(&served, 1);
    return NULL;
}

static void *server(void *arg) {
    (void)arg;
    while (!atomic_load(&stopping)) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, serve_one, (void *)(long)fd) != 0) close(fd);
        pthread_attr_destroy(&attr);
    }
    return NULL;
}

struct waiter {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
};

static void ended(void *ctx) {
    struct waiter *w = ctx;
    pthread_mutex_lock(&w->lock);
    w->done += 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static char port_text[16];
static atomic_int failures;

static void *worker(void *arg) {
    unsigned seed = (unsigned)(long)arg * 40503u + 7u;
    static const char request[] = "GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    for (int i = 0; i < ROUNDS; i++) {
        struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        const char *host = next_random(&seed) % 4 == 0 ? "localhost" : "127.0.0.1";
        ifn_exchange *x = ifn_exchange_start(host, port_text, request, sizeof request - 1, 1 << 20, 2000, 2000, ended, &w);
        if (!x) { fprintf(stderr, "cnet-stress: an exchange did not start\n"); atomic_fetch_add(&failures, 1); continue; }
        unsigned what = next_random(&seed) % 5;
        if (what == 0) ifn_exchange_cancel(x);                           /* at once */
        if (what == 1) { usleep(next_random(&seed) % 8000); ifn_exchange_cancel(x); }   /* while it runs */
        if (what == 2) ifn_exchange_limit_body(x, next_random(&seed) % 80);           /* lowered while it runs */
        pthread_mutex_lock(&w.lock);
        while (!w.done) pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        if (what == 3) ifn_exchange_cancel(x);                           /* after the end: changes nothing */
        const unsigned char *bytes = NULL;
        size_t len = 0;
        char err[128];
        int code = ifn_exchange_result(x, &bytes, &len, err, sizeof err);
        if (code < IFN_OK || code > IFN_E_NOFILE || (code == IFN_OK && len == 0)) {
            fprintf(stderr, "cnet-stress: unexpected result %d (%zu bytes)\n", code, len);
            atomic_fetch_add(&failures, 1);
        }
        ifn_exchange_release(x);
        if (w.done != 1) { fprintf(stderr, "cnet-stress: done called %d times\n", w.done); atomic_fetch_add(&failures, 1); }
    }
    return NULL;
}

int main(void) {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t addrlen = sizeof addr;
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 256) != 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &addrlen) != 0) {
        perror("cnet-stress: listen");
        return 1;
    }
    snprintf(port_text, sizeof port_text, "%d", ntohs(addr.sin_port));
    pthread_t srv, workers[WORKERS];
    pthread_create(&srv, NULL, server, NULL);
    for (long i = 0; i < WORKERS; i++) pthread_create(&workers[i], NULL, worker, (void *)i);
    for (int i = 0; i < WORKERS; i++) pthread_join(workers[i], NULL);
    atomic_store(&stopping, 1);
    shutdown(listener, SHUT_RDWR);
    close(listener);
    pthread_join(srv, NULL);
    sleep(1);   /* detached exchange and lookup threads finish (their handles were released) */
    printf("cnet-stress: %d exchanges on %d threads (cancels, lowered limits, resolver), %d answered, %d problem(s)\n",
           WORKERS * ROUNDS, WORKERS, atomic_load(&served), atomic_load(&failures));
    return atomic_load(&failures) == 0 ? 0 : 1;
}
