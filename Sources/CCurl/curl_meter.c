/* curl_meter.c: the progress meter of ccurl.h. Written by the loop thread, read by any thread:
 * relaxed atomics (each value is a reading for a progress line, not a synchronisation point). */
#include "curl_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

struct ifc_meter {
    _Atomic long long total;
    _Atomic long long current;
    _Atomic long long expected;
    _Atomic int running;
};

ifc_meter *ifc_meter_new(void) {
    ifc_meter *m = calloc(1, sizeof *m);
    if (m != NULL) atomic_store_explicit(&m->expected, -1, memory_order_relaxed);
    return m;
}

void ifc_meter_free(ifc_meter *m) { free(m); }

void ifc_meter_read(const ifc_meter *m, long long *total, long long *current, long long *expected, int *running) {
    ifc_meter *w = (ifc_meter *)m;
    if (total != NULL) *total = m != NULL ? atomic_load_explicit(&w->total, memory_order_relaxed) : 0;
    if (current != NULL) *current = m != NULL ? atomic_load_explicit(&w->current, memory_order_relaxed) : 0;
    if (expected != NULL) *expected = m != NULL ? atomic_load_explicit(&w->expected, memory_order_relaxed) : -1;
    if (running != NULL) *running = m != NULL ? atomic_load_explicit(&w->running, memory_order_relaxed) : 0;
}

void ifc_meter_running(xfer *x, int running) {
    if (x->meter == NULL || (running != 0) == (x->meter_running != 0)) return;
    x->meter_running = running != 0;
    atomic_fetch_add_explicit(&x->meter->running, running ? 1 : -1, memory_order_relaxed);
}

void ifc_meter_count(xfer *x, size_t n) {
    ifc_meter *m = x->meter;
    if (m == NULL) return;
    if (!x->metered) {
        /* The first bytes of a response (a redirect hop or a retry starts a new one). */
        x->metered = 1;
        curl_off_t cl = -1;
        if (cu.easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK || cl < 0) cl = -1;
        atomic_store_explicit(&m->expected, (long long)cl, memory_order_relaxed);
        atomic_store_explicit(&m->current, 0, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&m->current, (long long)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->total, (long long)n, memory_order_relaxed);
}
