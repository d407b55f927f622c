/* jpeg_resize.c: the JPEG path's Lanczos3 resizer (see jpeg_fast.c), fed one decoded row at a time. */
#define _GNU_SOURCE
#include "jpeg_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lanczos3 weights for resampling `in` samples to `out` (out <= in), as vips' reduce does. Each
 * output gets `n` taps: the input indices (already clamped to the edges) and their weights. */
struct ifj_taps {
    int *idx;    /* out * n input indices */
    float *w;    /* out * n weights */
    int n;
};

static double ifj_lanczos3(double x) {
    x = fabs(x);
    if (x < 1e-7) return 1.0;
    if (x >= 3.0) return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

static int ifj_make_taps(struct ifj_taps *t, int in, int out) {
    double scale = (double)in / out;          /* >= 1 */
    double support = 3.0 * scale;
    t->n = (int)ceil(support * 2) + 1;
    t->idx = malloc(sizeof(int) * (size_t)out * (size_t)t->n);
    t->w = malloc(sizeof(float) * (size_t)out * (size_t)t->n);
    if (t->idx == NULL || t->w == NULL) return -1;
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int first = (int)floor(centre - support) + 1;
        double sum = 0;
        float *w = t->w + (size_t)o * (size_t)t->n;
        int *idx = t->idx + (size_t)o * (size_t)t->n;
        for (int k = 0; k < t->n; k++) {
            int i = first + k;
            double v = i > centre + support ? 0.0 : ifj_lanczos3((i - centre) / scale);
            w[k] = (float)v;
            idx[k] = i < 0 ? 0 : (i >= in ? in - 1 : i);  /* edges extended */
            sum += v;
        }
        for (int k = 0; k < t->n; k++) w[k] = (float)(w[k] / sum);
    }
    return 0;
}

static void ifj_free_taps(struct ifj_taps *t) {
    free(t->idx);
    free(t->w);
}

static inline unsigned char ifj_clamp_byte(float v) {
    v += 0.5f;
    return v <= 0 ? 0 : (v >= 255 ? 255 : (unsigned char)v);
}

/* Separable Lanczos3 resize of an 8-bit interleaved image (1 or 3 channels), fed one input row at
 * a time as the decoder produces it. The last rows are kept (a ring of as many rows as an output row
 * has vertical taps: an output row's taps span that many consecutive rows, and it is made as soon
 * as its last one arrives, so older rows are never read again); as soon as an output row's last
 * input row has arrived, its vertical pass accumulates whole input rows (contiguous, so the compiler
 * vectorises it: the larger half of the work, done on the input's width) and its horizontal pass
 * runs on that one row. So when the last bytes of a download arrive, only the last rows are left
 * to resize (jpeg_stream.c). */
struct ifj_resizer {
    struct ifj_taps tx, ty;
    unsigned char *rows;     /* a ring of `ring` input rows of sw * ch bytes; row y at y % ring */
    float *acc;              /* one vertically filtered row, sw * ch */
    unsigned char *dst;      /* dh rows of dw * ch bytes */
    int ch, dh, dw, next_out, ring;
    size_t inlen, rowlen;
};

void ifj_resizer_free(struct ifj_resizer *r) {
    if (r == NULL) return;
    ifj_free_taps(&r->tx);
    ifj_free_taps(&r->ty);
    free(r->rows);
    free(r->acc);
    free(r->dst);
    free(r);
}

struct ifj_resizer *ifj_resizer_new(int sw, int sh, int ch, int dw, int dh) {
    struct ifj_resizer *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->ch = ch;
    r->dh = dh;
    r->dw = dw;
    r->inlen = (size_t)sw * (size_t)ch;
    r->rowlen = (size_t)dw * (size_t)ch;
    if (ifj_make_taps(&r->tx, sw, dw) != 0 || ifj_make_taps(&r->ty, sh, dh) != 0) goto fail;
    r->ring = r->ty.n + 1 < sh ? r->ty.n + 1 : sh;
    r->rows = malloc(r->inlen * (size_t)r->ring);
    r->acc = malloc(sizeof(float) * r->inlen);
    r->dst = malloc(r->rowlen * (size_t)dh);
    if (r->rows == NULL || r->acc == NULL || r->dst == NULL) goto fail;
    return r;
fail:
    ifj_resizer_free(r);
    return NULL;
}

/* Input row `y` (rows arrive in order); emits every output row whose taps are now all present. */
void ifj_resizer_row(struct ifj_resizer *r, int y, const unsigned char *row) {
    memcpy(r->rows + (size_t)(y % r->ring) * r->inlen, row, r->inlen);
    const int tn = r->ty.n, n = r->tx.n, ch = r->ch;
    while (r->next_out < r->dh && r->ty.idx[(size_t)r->next_out * (size_t)tn + (size_t)(tn - 1)] <= y) {
        const int o = r->next_out++;
        const float *w = r->ty.w + (size_t)o * (size_t)tn;
        const int *idx = r->ty.idx + (size_t)o * (size_t)tn;
        float *acc = r->acc;
        memset(acc, 0, sizeof(float) * r->inlen);
        for (int k = 0; k < tn; k++) {
            const float wk = w[k];
            if (wk == 0) continue;
            const unsigned char *m = r->rows + (size_t)(idx[k] % r->ring) * r->inlen;
            for (size_t x = 0; x < r->inlen; x++) acc[x] += wk * (float)m[x];
        }
        unsigned char *dst = r->dst + (size_t)o * r->rowlen;
        for (int x = 0; x < r->dw; x++) {
            const float *wx = r->tx.w + (size_t)x * (size_t)n;
            const int *ix = r->tx.idx + (size_t)x * (size_t)n;
            if (ch == 3) {
                float cr = 0, cg = 0, cb = 0;
                for (int k = 0; k < n; k++) {
                    const float *p = acc + ix[k] * 3;
                    cr += wx[k] * p[0];
                    cg += wx[k] * p[1];
                    cb += wx[k] * p[2];
                }
                dst[x * 3] = ifj_clamp_byte(cr);
                dst[x * 3 + 1] = ifj_clamp_byte(cg);
                dst[x * 3 + 2] = ifj_clamp_byte(cb);
            } else {
                for (int c = 0; c < ch; c++) {
                    float v = 0;
                    for (int k = 0; k < n; k++) v += wx[k] * acc[ix[k] * ch + c];
                    dst[x * ch + c] = ifj_clamp_byte(v);
                }
            }
        }
    }
}

const unsigned char *ifj_resizer_pixels(const struct ifj_resizer *r) { return r->dst; }
