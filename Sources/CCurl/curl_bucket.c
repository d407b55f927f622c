/* curl_bucket.c: the engine's one token bucket (ifc_engine_new's rate_total, --limit-rate-total),
 * loop thread only: the write callback takes from it (curl_callbacks.c) and pauses a transfer that
 * finds it empty; the loop unpauses paused transfers as it refills (curl_engine.c). */
#define _GNU_SOURCE
#include "curl_internal.h"

#include <time.h>

double ifc_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ifc_bucket_init(ifc_bucket *b, long long rate) {
    b->rate = (double)rate;
    b->capacity = b->rate / 10 > 1 ? b->rate / 10 : 1;
    b->tokens = b->capacity;
    b->refilled_at = ifc_monotonic();
}

int ifc_bucket_ready(ifc_bucket *b) {
    double now = ifc_monotonic();
    if (now > b->refilled_at) {
        b->tokens += (now - b->refilled_at) * b->rate;
        if (b->tokens > b->capacity) b->tokens = b->capacity;
        b->refilled_at = now;
    }
    return b->tokens > 0;
}

/* The overall cap: while the bucket holds tokens, paused transfers are resumed, one at a time and
 * starting one further along the running list each round (none is starved); curl_easy_pause may
 * deliver the held data at once, taking from the bucket (or pausing the transfer again). Returns
 * the number still paused. */
int ifc_unpause_ready(ifc_engine *e) {
    int paused = 0;
    for (xfer *x = e->running; x != NULL; x = x->next) {
        if (x->paused) x->paused = 2;   /* a candidate of this round */
        paused += x->paused != 0;
    }
    if (paused == 0) return 0;
    unsigned long start = e->unpause_turn++ % (unsigned long)paused;
    /* First the candidates from `start` on, then those before it (still marked 2). */
    for (int pass = 0; pass < 2; pass++) {
        unsigned long index = 0;
        for (xfer *x = e->running; x != NULL; x = x->next) {
            if (x->paused != 2) continue;
            if (pass == 0 && index++ < start) continue;
            if (!ifc_bucket_ready(&e->bucket)) break;
            x->paused = 0;
            cu.easy_pause(x->easy, CURLPAUSE_CONT);   /* may call ifc_write_cb, which may pause it again */
        }
    }
    paused = 0;
    for (xfer *x = e->running; x != NULL; x = x->next) {
        if (x->paused) x->paused = 1;
        paused += x->paused;
    }
    return paused;
}

/* How long until the bucket holds a token again, in ms (at least 1). */
int ifc_bucket_wait_ms(const ifc_bucket *b) {
    double ms = b->tokens >= 0 ? 1 : -b->tokens / b->rate * 1000 + 1;
    return ms > 1000 ? 1000 : (int)ms;
}

