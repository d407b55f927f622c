/* jpeg_internal.h: what jpeg_fast.c shares with jpeg_stream.c, and the resizer with its taps (not part
 * of the module's API). */
#ifndef IFJ_INTERNAL_H
#define IFJ_INTERNAL_H
#include <stdio.h>

#include <jpeglib.h>

#include "cjpeg.h"

/* Installs the decompressor's data source (a memory buffer, or a stream fed while downloading). */
typedef void (*ifj_src_setup)(j_decompress_ptr d, void *ctx);

/* The thumbnail of ifj_thumbnail, reading from whatever source `setup` installs. The source reports
 * the end of data as libjpeg's memory source does (a warning and a fake EOI), so both decline alike. */
int ifj__thumbnail_from(ifj_src_setup setup, void *ctx, const ifj_opts *opts, int streaming, ifj_result *res);

/* Streaming decodes run outside the processing pool's width limit, one per slow transfer, so
 * their memory is bounded here: they decline (and leave to the pool-bounded path) a progressive
 * JPEG above IFJ_STREAM_PROGRESSIVE_MAX_PIXELS, whose whole coefficient buffer (3-6 bytes a
 * pixel) libjpeg keeps, and a decode kept whole (no resize) above IFJ_STREAM_WHOLE_MAX_PIXELS.
 * At most IFJ_STREAM_DECODERS_PER_CORE x cores decode at once; the others decline. */
#define IFJ_STREAM_PROGRESSIVE_MAX_PIXELS 2e6
#define IFJ_STREAM_WHOLE_MAX_PIXELS 2e6
#define IFJ_STREAM_DECODERS_PER_CORE 4
/* libjpeg's default restart-marker resync (resolved with dlopen), for custom sources. */
boolean ifj__resync_to_restart(j_decompress_ptr d, int desired);

/* jpeg_taps.c: Lanczos3 weights for resampling `in` samples to `out` (out <= in), as vips' reduce
 * does. Each output gets `n` taps: the input indices (already clamped to the edges) and their weights. */
struct ifj_taps {
    int *idx;    /* out * n input indices */
    float *w;    /* out * n weights */
    int n, out;
    double scale;
};
int ifj__make_taps(struct ifj_taps *t, int in, int out, const struct ifj_taps *like);   /* -1: out of memory */
void ifj__free_taps(struct ifj_taps *t);

/* jpeg_resize.c: a separable Lanczos3 resize of 8-bit rows (1 or 3 channels), fed in order. */
struct ifj_resizer;
struct ifj_resizer *ifj_resizer_new(int sw, int sh, int ch, int dw, int dh);   /* NULL when out of memory */
void ifj_resizer_row(struct ifj_resizer *r, int y, const unsigned char *row);
const unsigned char *ifj_resizer_pixels(const struct ifj_resizer *r);            /* complete after the last row */
void ifj_resizer_free(struct ifj_resizer *r);

#endif
