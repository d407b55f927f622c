/* codecs_internal.h: what the module's files share (not part of its API). */
#ifndef IFC_INTERNAL_H
#define IFC_INTERNAL_H

#include "ccodecs.h"

/* codecs_taps.c: Lanczos3 weights for resampling `in` samples to `out` (out <= in), as vips' reduce
 * does. Each output gets `n` taps: the input indices (already clamped to the edges) and their weights. */
struct ifc_taps {
    int *idx;    /* out * n input indices */
    float *w;    /* out * n weights */
    int n, out;
    double scale;
};
int ifc__make_taps(struct ifc_taps *t, int in, int out, const struct ifc_taps *like);   /* -1: out of memory */
void ifc__free_taps(struct ifc_taps *t);

/* codecs_common.c: writes `what` into msg (msg may be NULL); returns IFC_FAILED. */
int ifc__fail(char *msg, size_t msglen, const char *what);

#endif
