/* codecs_taps.c: the Lanczos3 weights of codecs_resize.c's passes (see codecs_internal.h). */
#define _GNU_SOURCE
#include "codecs_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Products and sums stay separate operations, whatever the target: the weights are the same doubles
 * on every machine. */
#pragma STDC FP_CONTRACT OFF

static double ifc_lanczos3(double x) {
    x = fabs(x);
    if (x < 1e-7) return 1.0;
    if (x >= 3.0) return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

/* Whether outputs o and q have bit for bit the same weight inputs: each tap's offset from the centre
 * and whether it is past the support (then the same weights, to the last bit). */
static int ifc_same_offsets(int o, int q, double scale, double support, int n) {
    const double co = (o + 0.5) * scale - 0.5, cq = (q + 0.5) * scale - 0.5;
    const int fo = (int)floor(co - support) + 1, fq = (int)floor(cq - support) + 1;
    for (int k = 0; k < n; k++) {
        const int io = fo + k, iq = fq + k;
        const double a = io - co, b = iq - cq;
        if (memcmp(&a, &b, sizeof a) != 0 || (io > co + support) != (iq > cq + support)) return 0;
    }
    return 1;
}

static int ifc_gcd(int a, int b) {
    while (b != 0) { const int t = a % b; a = b; b = t; }
    return a;
}

/* An output's weights depend on the scale and its index only (not on `in`: the edges change the
 * indices, not the weights), so where `like` (the other axis, or NULL) has the same scale, its first
 * outputs' weights are copied, not computed again: the same doubles, so the same floats. A thumbnail
 * that keeps the aspect ratio has one scale (2000x1500 -> 320x240: 3.125 both ways). And they repeat:
 * the centres of outputs o and o + period (out / gcd(in, out)) are in / gcd(in, out) inputs apart, so
 * where the offsets are the same doubles (ifc_same_offsets), output o's weights are o - period's
 * (1000 -> 320: a period of 8, the sin calls of 8 outputs instead of 320). */
int ifc__make_taps(struct ifc_taps *t, int in, int out, const struct ifc_taps *like) {
    double scale = (double)in / out;          /* >= 1 */
    double support = 3.0 * scale;
    t->n = (int)ceil(support * 2) + 1;
    t->out = out;
    t->scale = scale;
    t->idx = malloc(sizeof(int) * (size_t)out * (size_t)t->n);
    t->w = malloc(sizeof(float) * (size_t)out * (size_t)t->n);
    if (t->idx == NULL || t->w == NULL) return -1;
    int shared = 0;
    if (like != NULL && like->scale == scale && like->n == t->n) {
        shared = like->out < out ? like->out : out;
        memcpy(t->w, like->w, sizeof(float) * (size_t)shared * (size_t)t->n);
    }
    const int period = out / ifc_gcd(in, out);
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int first = (int)floor(centre - support) + 1;
        double sum = 0;
        float *w = t->w + (size_t)o * (size_t)t->n;
        int *idx = t->idx + (size_t)o * (size_t)t->n;
        for (int k = 0; k < t->n; k++) {
            int i = first + k;
            idx[k] = i < 0 ? 0 : (i >= in ? in - 1 : i);  /* edges extended */
        }
        if (o < shared) continue;
        if (o >= period && ifc_same_offsets(o, o - period, scale, support, t->n)) {
            memcpy(w, w - (size_t)period * (size_t)t->n, sizeof(float) * (size_t)t->n);
            continue;
        }
        for (int k = 0; k < t->n; k++) {
            int i = first + k;
            double v = i > centre + support ? 0.0 : ifc_lanczos3((i - centre) / scale);
            w[k] = (float)v;
            sum += v;
        }
        for (int k = 0; k < t->n; k++) w[k] = (float)(w[k] / sum);
    }
    return 0;
}

void ifc__free_taps(struct ifc_taps *t) {
    free(t->idx);
    free(t->w);
}
