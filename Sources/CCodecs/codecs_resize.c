/* codecs_resize.c: the Lanczos3 resizer of the JPEG path (jpeg_fast.c) and of the pixel encoders, fed one row at a time. */
#define _GNU_SOURCE
#include "codecs_internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Products and sums stay separate operations, whatever the target (see ifc_v4). */
#pragma STDC FP_CONTRACT OFF

static inline unsigned char ifc_clamp_byte(float v) {
    v += 0.5f;
    return v <= 0 ? 0 : (v >= 255 ? 255 : (unsigned char)v);
}

/* Four floats in one SSE register (GCC/clang vector extension): lane-wise * and + are the same IEEE
 * operations as the scalar ones, so the sums below are bit for bit those of a scalar loop that adds
 * the same products in the same order (no FMA: the baseline x86-64 target has none to contract to). */
typedef float ifc_v4 __attribute__((vector_size(16), aligned(4), may_alias));
/* 16 bytes and 16 floats, for converting a decoded row at once. */
typedef unsigned char ifc_b16 __attribute__((vector_size(16), aligned(1), may_alias));
typedef float ifc_f16 __attribute__((vector_size(64), aligned(4), may_alias));

/* Separable Lanczos3 resize of an 8-bit interleaved image (1 or 3 channels), fed one input row at
 * a time as the decoder produces it. The last rows are kept as floats (each row converted once, on
 * arrival, not once per output row it feeds: a ring of as many rows as an output row has vertical
 * taps: an output row's taps span that many consecutive rows, and it is made as soon as its last one
 * arrives, so older rows are never read again); as soon as an output row's last input row has
 * arrived, its vertical pass sums the tap rows 16 samples at a time in registers (the larger half of
 * the work, done on the input's width: each sample's sum still starts at 0 and adds the taps in
 * order), and its horizontal pass runs on that one row, a pixel's three channels in one register.
 * So when the last bytes of a download arrive, only the last rows are left to resize
 * (jpeg_stream.c). */
struct ifc_resizer {
    struct ifc_taps tx, ty;
    float *rows;             /* a ring of `ring` input rows of sw * ch floats; row y at y % ring */
    float *acc;              /* one vertically filtered row, sw * ch (+ 4 zeros: a pixel's 4-lane load) */
    unsigned char *dst;      /* dh rows of dw * ch bytes */
    const float **tap;       /* the current output row's tap rows (ty.n) */
    float *tapw;             /* and their weights */
    ifc_v4 *hw;              /* 3 channels: tx's weights, each in all four lanes (dw * tx.n) */
    int *hfirst;             /* 3 channels: a pixel's first tap's sample when its taps are consecutive, else -1 */
    float *hw2;              /* 3 channels with AVX: pixels 2i and 2i + 1's weights, each in four lanes of
                                eight ((dw / 2) * tx.n * 8 floats) */
    void (*vertical)(float *, const float *const *, const float *, int, size_t);
    void (*horizontal)(const struct ifc_resizer *, unsigned char *);
    void (*to_float)(float *, const unsigned char *, size_t);
    int ch, dh, dw, next_out, ring;
    size_t inlen, rowlen;
};

static void ifc_vertical_sse(float *acc, const float *const *tap, const float *w, int taps, size_t len);
static void ifc_horizontal(const struct ifc_resizer *r, unsigned char *dst);
static void ifc_to_float(float *in, const unsigned char *row, size_t len);
static void ifc_to_float_premultiplied4(float *in, const unsigned char *row, size_t len);
static void ifc_to_float_premultiplied2(float *in, const unsigned char *row, size_t len);
static void ifc_horizontal_alpha(const struct ifc_resizer *r, unsigned char *dst);
#if defined(__x86_64__)
static void ifc_vertical_avx(float *acc, const float *const *tap, const float *w, int taps, size_t len);
static void ifc_horizontal_avx(const struct ifc_resizer *r, unsigned char *dst);
static void ifc_to_float_avx2(float *in, const unsigned char *row, size_t len);
#endif

void ifc_resizer_free(struct ifc_resizer *r) {
    if (r == NULL) return;
    ifc__free_taps(&r->tx);
    ifc__free_taps(&r->ty);
    free(r->rows);
    free(r->acc);
    free(r->dst);
    free(r->tap);
    free(r->tapw);
    free(r->hw);
    free(r->hfirst);
    free(r->hw2);
    free(r);
}

struct ifc_resizer *ifc_resizer_new(int sw, int sh, int ch, int dw, int dh) {
    if (ch < 1 || ch > 4 || dw < 1 || dh < 1 || dw > sw || dh > sh) return NULL;
    struct ifc_resizer *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->ch = ch;
    r->dh = dh;
    r->dw = dw;
    r->inlen = (size_t)sw * (size_t)ch;
    r->rowlen = (size_t)dw * (size_t)ch;
    if (ifc__make_taps(&r->tx, sw, dw, NULL) != 0 || ifc__make_taps(&r->ty, sh, dh, &r->tx) != 0) goto fail;
    r->ring = r->ty.n + 1 < sh ? r->ty.n + 1 : sh;
    r->rows = malloc(sizeof(float) * r->inlen * (size_t)r->ring);
    r->acc = calloc(r->inlen + 4, sizeof(float));
    r->dst = malloc(r->rowlen * (size_t)dh);
    r->tap = malloc(sizeof(float *) * (size_t)r->ty.n);
    r->tapw = malloc(sizeof(float) * (size_t)r->ty.n);
    if (r->rows == NULL || r->acc == NULL || r->dst == NULL || r->tap == NULL || r->tapw == NULL) goto fail;
    r->vertical = ifc_vertical_sse;
    r->horizontal = ifc_horizontal;
    r->to_float = ifc_to_float;
#if defined(__x86_64__)
    const int avx = __builtin_cpu_supports("avx");
    if (avx) r->vertical = ifc_vertical_avx;
    if (__builtin_cpu_supports("avx2")) r->to_float = ifc_to_float_avx2;
#endif
    if (ch == 2 || ch == 4) {
        r->to_float = ch == 4 ? ifc_to_float_premultiplied4 : ifc_to_float_premultiplied2;
        r->horizontal = ifc_horizontal_alpha;
    }
    if (ch == 3) {
        const int n = r->tx.n;
        r->hw = malloc(sizeof(ifc_v4) * (size_t)dw * (size_t)n);
        r->hfirst = malloc(sizeof(int) * (size_t)dw);
        if (r->hw == NULL || r->hfirst == NULL) goto fail;
        for (int x = 0; x < dw; x++) {
            const float *wx = r->tx.w + (size_t)x * (size_t)n;
            const int *ix = r->tx.idx + (size_t)x * (size_t)n;
            int consecutive = 1;
            for (int k = 0; k < n; k++) {
                const float wk = wx[k];
                r->hw[(size_t)x * (size_t)n + (size_t)k] = (ifc_v4){ wk, wk, wk, wk };
                if (ix[k] != ix[0] + k) consecutive = 0;
            }
            r->hfirst[x] = consecutive ? ix[0] * 3 : -1;
        }
#if defined(__x86_64__)
        if (avx && dw >= 2) {
            r->hw2 = malloc(sizeof(float) * 8 * (size_t)(dw / 2) * (size_t)n);
            if (r->hw2 == NULL) goto fail;
            for (int x = 0; x + 1 < dw; x += 2)
                for (int k = 0; k < n; k++)
                    for (int lane = 0; lane < 8; lane++)
                        r->hw2[((size_t)(x / 2) * (size_t)n + (size_t)k) * 8 + (size_t)lane] = r->tx.w[(size_t)(x + lane / 4) * (size_t)n + (size_t)k];
            r->horizontal = ifc_horizontal_avx;
        }
#endif
    }
    return r;
fail:
    ifc_resizer_free(r);
    return NULL;
}

/* acc[x] = 0 + w[0] * tap[0][x] + w[1] * tap[1][x] + ... (in that order), for x < len. */
static void ifc_vertical_sse(float *acc, const float *const *tap, const float *w, int taps, size_t len) {
    size_t x = 0;
    for (; x + 16 <= len; x += 16) {
        ifc_v4 a0 = { 0, 0, 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < taps; k++) {
            const float *m = tap[k] + x;
            const float wk = w[k];
            a0 += wk * *(const ifc_v4 *)m;
            a1 += wk * *(const ifc_v4 *)(m + 4);
            a2 += wk * *(const ifc_v4 *)(m + 8);
            a3 += wk * *(const ifc_v4 *)(m + 12);
        }
        *(ifc_v4 *)(acc + x) = a0;
        *(ifc_v4 *)(acc + x + 4) = a1;
        *(ifc_v4 *)(acc + x + 8) = a2;
        *(ifc_v4 *)(acc + x + 12) = a3;
    }
    for (; x < len; x++) {
        float a = 0;
        for (int k = 0; k < taps; k++) a += w[k] * tap[k][x];
        acc[x] = a;
    }
}

#if defined(__x86_64__)
/* The same sums eight lanes at a time where the CPU has AVX (the same IEEE products and sums: AVX
 * only, no FMA, so nothing is fused). */
typedef float ifc_v8 __attribute__((vector_size(32), aligned(4), may_alias));

__attribute__((target("avx")))
static void ifc_vertical_avx(float *acc, const float *const *tap, const float *w, int taps, size_t len) {
    size_t x = 0;
    /* 64 samples a pass over the taps (eight registers of sums), then 32. */
    for (; x + 64 <= len; x += 64) {
        ifc_v8 a0 = { 0, 0, 0, 0, 0, 0, 0, 0 }, a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        for (int k = 0; k < taps; k++) {
            const float *m = tap[k] + x;
            const float wk = w[k];
            a0 += wk * *(const ifc_v8 *)m;
            a1 += wk * *(const ifc_v8 *)(m + 8);
            a2 += wk * *(const ifc_v8 *)(m + 16);
            a3 += wk * *(const ifc_v8 *)(m + 24);
            a4 += wk * *(const ifc_v8 *)(m + 32);
            a5 += wk * *(const ifc_v8 *)(m + 40);
            a6 += wk * *(const ifc_v8 *)(m + 48);
            a7 += wk * *(const ifc_v8 *)(m + 56);
        }
        *(ifc_v8 *)(acc + x) = a0;
        *(ifc_v8 *)(acc + x + 8) = a1;
        *(ifc_v8 *)(acc + x + 16) = a2;
        *(ifc_v8 *)(acc + x + 24) = a3;
        *(ifc_v8 *)(acc + x + 32) = a4;
        *(ifc_v8 *)(acc + x + 40) = a5;
        *(ifc_v8 *)(acc + x + 48) = a6;
        *(ifc_v8 *)(acc + x + 56) = a7;
    }
    for (; x + 32 <= len; x += 32) {
        ifc_v8 a0 = { 0, 0, 0, 0, 0, 0, 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < taps; k++) {
            const float *m = tap[k] + x;
            const float wk = w[k];
            a0 += wk * *(const ifc_v8 *)m;
            a1 += wk * *(const ifc_v8 *)(m + 8);
            a2 += wk * *(const ifc_v8 *)(m + 16);
            a3 += wk * *(const ifc_v8 *)(m + 24);
        }
        *(ifc_v8 *)(acc + x) = a0;
        *(ifc_v8 *)(acc + x + 8) = a1;
        *(ifc_v8 *)(acc + x + 16) = a2;
        *(ifc_v8 *)(acc + x + 24) = a3;
    }
    for (; x < len; x++) {
        float a = 0;
        for (int k = 0; k < taps; k++) a += w[k] * tap[k][x];
        acc[x] = a;
    }
}
#endif

/* in[x] = row[x] for x < len (exact: every byte is a float). */
static void ifc_to_float(float *in, const unsigned char *row, size_t len) {
    size_t x = 0;
    for (; x + 16 <= len; x += 16) *(ifc_f16 *)(in + x) = __builtin_convertvector(*(const ifc_b16 *)(row + x), ifc_f16);
    for (; x < len; x++) in[x] = (float)row[x];
}

/* With alpha (2 or 4 channels, alpha last): the colour premultiplied by alpha / 255, as libvips'
 * premultiply does before its resize, so that a transparent pixel's colour weighs nothing. */
static void ifc_to_float_premultiplied4(float *in, const unsigned char *row, size_t len) {
    for (size_t x = 0; x + 4 <= len; x += 4) {
        const float a = (float)row[x + 3], f = a / 255.0f;
        in[x] = (float)row[x] * f;
        in[x + 1] = (float)row[x + 1] * f;
        in[x + 2] = (float)row[x + 2] * f;
        in[x + 3] = a;
    }
}

static void ifc_to_float_premultiplied2(float *in, const unsigned char *row, size_t len) {
    for (size_t x = 0; x + 2 <= len; x += 2) {
        const float a = (float)row[x + 1];
        in[x] = (float)row[x] * (a / 255.0f);
        in[x + 1] = a;
    }
}

/* The horizontal pass with alpha, then the colour divided by the filtered alpha (libvips'
 * unpremultiply: alpha clipped to 0-255; where it is 0 the colour is 0). */
static void ifc_horizontal_alpha(const struct ifc_resizer *r, unsigned char *dst) {
    const int n = r->tx.n, ch = r->ch;
    for (int x = 0; x < r->dw; x++) {
        const float *wx = r->tx.w + (size_t)x * (size_t)n;
        const int *ix = r->tx.idx + (size_t)x * (size_t)n;
        float v[4];
        if (ch == 4) {
            ifc_v4 c = { 0, 0, 0, 0 };
            for (int k = 0; k < n; k++) c += wx[k] * *(const ifc_v4 *)(r->acc + ix[k] * 4);
            for (int i = 0; i < 4; i++) v[i] = c[i];
        } else {
            v[0] = v[1] = 0;
            for (int k = 0; k < n; k++) {
                v[0] += wx[k] * r->acc[ix[k] * 2];
                v[1] += wx[k] * r->acc[ix[k] * 2 + 1];
            }
        }
        float a = v[ch - 1];
        a = a < 0 ? 0 : (a > 255 ? 255 : a);
        unsigned char *d = dst + (size_t)x * (size_t)ch;
        for (int i = 0; i < ch - 1; i++) d[i] = a == 0 ? 0 : ifc_clamp_byte(v[i] * 255.0f / a);
        d[ch - 1] = ifc_clamp_byte(a);
    }
}

/* One 3-channel output pixel: lanes 0-2 are its red, green, blue sums (lane 3 reads the next sample:
 * unused), each 0 + w[0] * s[0] + w[1] * s[1] + ... in that order. */
static inline ifc_v4 ifc_pixel3(const struct ifc_resizer *r, int x) {
    const int n = r->tx.n;
    ifc_v4 c = { 0, 0, 0, 0 };
    const ifc_v4 *hw = r->hw + (size_t)x * (size_t)n;
    if (r->hfirst[x] >= 0) {
        const float *p = r->acc + r->hfirst[x];     /* the taps' samples, 3 floats apart */
        int k = 0;
        for (; k + 4 <= n; k += 4, p += 12) {   /* unrolled: the same adds, in order */
            c += hw[k] * *(const ifc_v4 *)p;
            c += hw[k + 1] * *(const ifc_v4 *)(p + 3);
            c += hw[k + 2] * *(const ifc_v4 *)(p + 6);
            c += hw[k + 3] * *(const ifc_v4 *)(p + 9);
        }
        for (; k < n; k++, p += 3) c += hw[k] * *(const ifc_v4 *)p;
    } else {
        const int *ix = r->tx.idx + (size_t)x * (size_t)n;
        for (int k = 0; k < n; k++) c += hw[k] * *(const ifc_v4 *)(r->acc + ix[k] * 3);
    }
    return c;
}

/* Pixel x's three bytes from the sums in lanes 0-2. */
static inline void ifc_store3(unsigned char *dst, int x, ifc_v4 c) {
    dst[x * 3] = ifc_clamp_byte(c[0]);
    dst[x * 3 + 1] = ifc_clamp_byte(c[1]);
    dst[x * 3 + 2] = ifc_clamp_byte(c[2]);
}

/* The horizontal pass of the vertically filtered row r->acc into one output row. */
static void ifc_horizontal(const struct ifc_resizer *r, unsigned char *dst) {
    const int n = r->tx.n, ch = r->ch;
    for (int x = 0; x < r->dw; x++) {
        if (ch == 3) {
            ifc_store3(dst, x, ifc_pixel3(r, x));
        } else {
            const float *wx = r->tx.w + (size_t)x * (size_t)n;
            const int *ix = r->tx.idx + (size_t)x * (size_t)n;
            for (int c = 0; c < ch; c++) {
                float v = 0;
                for (int k = 0; k < n; k++) v += wx[k] * r->acc[ix[k] * ch + c];
                dst[x * ch + c] = ifc_clamp_byte(v);
            }
        }
    }
}

#if defined(__x86_64__)
/* The same conversion eight bytes at a time where the CPU has AVX2, four eights a loop. */
__attribute__((target("avx2")))
static void ifc_to_float_avx2(float *in, const unsigned char *row, size_t len) {
#define IFC_EIGHT(o) _mm256_storeu_ps(in + x + (o), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + x + (o))))))
    size_t x = 0;
    for (; x + 32 <= len; x += 32) {
        IFC_EIGHT(0);
        IFC_EIGHT(8);
        IFC_EIGHT(16);
        IFC_EIGHT(24);
    }
    for (; x + 8 <= len; x += 8) IFC_EIGHT(0);
#undef IFC_EIGHT
    for (; x < len; x++) in[x] = (float)row[x];
}

/* 3 channels with AVX: two neighbouring pixels at once, pixel x in lanes 0-3 and x + 1 in lanes 4-7,
 * when both have consecutive taps (else one at a time, as ifc_horizontal): each lane's products and
 * sums are the IEEE operations of ifc_pixel3, in the same order, so the bytes are the same. */
__attribute__((target("avx")))
static void ifc_horizontal_avx(const struct ifc_resizer *r, unsigned char *dst) {
    const int n = r->tx.n, dw = r->dw;
    const int *hfirst = r->hfirst;
    const float *acc = r->acc, *hw2 = r->hw2;
    /* ifc_clamp_byte on eight lanes: + 0.5, then 0 below 0 and 255 from 255 (max, min), truncated. */
    const __m256 half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps(), top = _mm256_set1_ps(255.0f);
    int x = 0;
    for (; x + 1 < dw; x += 2) {
        const int f0 = hfirst[x], f1 = hfirst[x + 1];
        if (f0 < 0 || f1 < 0) {
            for (int i = x; i < x + 2; i++) ifc_store3(dst, i, ifc_pixel3(r, i));
            continue;
        }
        const float *p0 = acc + f0, *p1 = acc + f1;
        const float *w = hw2 + (size_t)(x / 2) * (size_t)n * 8;
        __m256 c = _mm256_setzero_ps();
#define IFC_TAP2(j) c = _mm256_add_ps(c, _mm256_mul_ps(_mm256_loadu_ps(w + 8 * (j)), \
            _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p0 + 3 * (j))), _mm_loadu_ps(p1 + 3 * (j)), 1)))
        int k = 0;
        for (; k + 4 <= n; k += 4, p0 += 12, p1 += 12, w += 32) {   /* unrolled: the same adds, in order */
            IFC_TAP2(0);
            IFC_TAP2(1);
            IFC_TAP2(2);
            IFC_TAP2(3);
        }
        for (; k < n; k++, p0 += 3, p1 += 3, w += 8) IFC_TAP2(0);
#undef IFC_TAP2
        /* max(v, 0) gives 0 for v <= 0, min(., 255) 255 for v >= 255 (the sums are finite: no NaN). */
        const __m256i v = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(c, half), zero), top));
        const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extractf128_si256(v, 1));
        const unsigned long long b = (unsigned long long)_mm_cvtsi128_si64(_mm_packus_epi16(words, words));
        unsigned char *d = dst + x * 3;
        d[0] = (unsigned char)b;
        d[1] = (unsigned char)(b >> 8);
        d[2] = (unsigned char)(b >> 16);
        d[3] = (unsigned char)(b >> 32);
        d[4] = (unsigned char)(b >> 40);
        d[5] = (unsigned char)(b >> 48);
    }
    for (; x < dw; x++) ifc_store3(dst, x, ifc_pixel3(r, x));
}
#endif

/* Input row `y` (rows arrive in order); emits every output row whose taps are now all present. */
void ifc_resizer_row(struct ifc_resizer *r, int y, const unsigned char *row) {
    r->to_float(r->rows + (size_t)(y % r->ring) * r->inlen, row, r->inlen);
    const int tn = r->ty.n;
    while (r->next_out < r->dh && r->ty.idx[(size_t)r->next_out * (size_t)tn + (size_t)(tn - 1)] <= y) {
        const int o = r->next_out++;
        const float *w = r->ty.w + (size_t)o * (size_t)tn;
        const int *idx = r->ty.idx + (size_t)o * (size_t)tn;
        int taps = 0;
        for (int k = 0; k < tn; k++) {
            if (w[k] == 0) continue;   /* a zero weight adds nothing (as before: skipped) */
            r->tap[taps] = r->rows + (size_t)(idx[k] % r->ring) * r->inlen;
            r->tapw[taps++] = w[k];
        }
        r->vertical(r->acc, r->tap, r->tapw, taps, r->inlen);
        r->horizontal(r, r->dst + (size_t)o * r->rowlen);
    }
}

const unsigned char *ifc_resizer_pixels(const struct ifc_resizer *r) { return r->dst; }

int ifc_resize(const ifc_pixels *in, int dw, int dh, ifc_pixels *out) {
    memset(out, 0, sizeof *out);
    if (in == NULL || in->data == NULL || in->stride < (size_t)in->width * (size_t)in->channels) return -1;
    struct ifc_resizer *r = ifc_resizer_new(in->width, in->height, in->channels, dw, dh);
    if (r == NULL) return -1;
    for (int y = 0; y < in->height; y++) ifc_resizer_row(r, y, in->data + (size_t)y * in->stride);
    /* The result is the resizer's own buffer, taken over. */
    out->data = r->dst;
    r->dst = NULL;
    out->width = dw;
    out->height = dh;
    out->channels = in->channels;
    out->stride = (size_t)dw * (size_t)in->channels;
    ifc_resizer_free(r);
    return 0;
}
