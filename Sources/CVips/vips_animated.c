/* vips_animated.c: an animated GIF's frames resized by CCodecs' Lanczos3, not libvips' reduce.
 *
 * With orc off (see IFV_NO_ORC), libvips' reduce runs in C: ~30% of a 20-frame 800x600 GIF's
 * thumbnail (2.3 G instructions). Here the frames are decoded by libvips (the same loader and
 * fail_on as vips_thumbnail), taken as 8-bit sRGB RGBA, resized one by one with ifc_resize (RGB when
 * every frame is opaque, else RGBA premultiplied, as vips_thumbnail does) to vips_thumbnail's size,
 * then stacked again with page-height, delay and loop for the caller's finish and gifsave.
 * Only the plain case: a GIF source fitted inside the box, downsized, no cover crop, no linear light, no
 * profile conversion; anything else declines (1) to vips_thumbnail. Threading: as vips_shim.c. */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccodecs.h"

typedef unsigned long GType;

enum { A_ACCESS_SEQUENTIAL = 2, A_INTERPRETATION_sRGB = 22, A_FORMAT_UCHAR = 0 };

/* The decoded strip is held whole: a bigger one goes to vips_thumbnail, which streams it. */
#define IFV_ANIMATED_MAX_BYTES ((size_t)256 << 20)

static VipsImage *(*a_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
static VipsImage *(*a_new_from_memory_copy)(const void *data, size_t size, int width, int height, int bands, int format);
static int (*a_get_width)(const VipsImage *image);
static int (*a_get_height)(const VipsImage *image);
static int (*a_get_page_height)(VipsImage *image);
static int (*a_colourspace)(VipsImage *in, VipsImage **out, int space, ...);
static int (*a_bandjoin_const1)(VipsImage *in, VipsImage **out, double c, ...);
static int (*a_cast)(VipsImage *in, VipsImage **out, int format, ...);
static int (*a_copy)(VipsImage *in, VipsImage **out, ...);
static int (*a_hasalpha)(VipsImage *image);
static int (*a_get_bands)(const VipsImage *image);
static void *(*a_write_to_memory)(VipsImage *in, size_t *size);
static GType (*a_get_typeof)(const VipsImage *image, const char *name);
static int (*a_get_int)(const VipsImage *image, const char *name, int *out);
static void (*a_set_int)(VipsImage *image, const char *name, int i);
static int (*a_get_array_int)(VipsImage *image, const char *name, int **out, int *n);
static void (*a_set_array_int)(VipsImage *image, const char *name, const int *array, int n);
static void (*a_unref)(void *object);
static void (*a_free)(void *p);

int ifv__animated_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(a_new_from_buffer, "vips_image_new_from_buffer");
    IFV_RESOLVE(a_new_from_memory_copy, "vips_image_new_from_memory_copy");
    IFV_RESOLVE(a_get_width, "vips_image_get_width");
    IFV_RESOLVE(a_get_height, "vips_image_get_height");
    IFV_RESOLVE(a_get_page_height, "vips_image_get_page_height");
    IFV_RESOLVE(a_colourspace, "vips_colourspace");
    IFV_RESOLVE(a_bandjoin_const1, "vips_bandjoin_const1");
    IFV_RESOLVE(a_cast, "vips_cast");
    IFV_RESOLVE(a_copy, "vips_copy");
    IFV_RESOLVE(a_hasalpha, "vips_image_hasalpha");
    IFV_RESOLVE(a_get_bands, "vips_image_get_bands");
    IFV_RESOLVE(a_write_to_memory, "vips_image_write_to_memory");
    IFV_RESOLVE(a_get_typeof, "vips_image_get_typeof");
    IFV_RESOLVE(a_get_int, "vips_image_get_int");
    IFV_RESOLVE(a_set_int, "vips_image_set_int");
    IFV_RESOLVE(a_get_array_int, "vips_image_get_array_int");
    IFV_RESOLVE(a_set_array_int, "vips_image_set_array_int");
    IFV_RESOLVE(a_unref, "g_object_unref");
    IFV_RESOLVE(a_free, "g_free");
    return 0;
}

/* Replaces *img by `next` when the step succeeded (rc 0). */
static int a_step(VipsImage **img, int rc, VipsImage *next) {
    if (rc != 0 || next == NULL) return -1;
    a_unref(*img);
    *img = next;
    return 0;
}

/* The animation's fields gifsave reads (those ifv__finish keeps), from `from` to `to`. */
static void a_copy_fields(VipsImage *from, VipsImage *to) {
    static const char *const ints[] = { "loop", "gif-loop", "gif-delay" };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        int v = 0;
        if (a_get_typeof(from, ints[i]) != 0 && a_get_int(from, ints[i], &v) == 0) a_set_int(to, ints[i], v);
    }
    int *delay = NULL, n = 0;
    if (a_get_typeof(from, "delay") != 0 && a_get_array_int(from, "delay", &delay, &n) == 0 && delay != NULL && n > 0)
        a_set_array_int(to, "delay", delay, n);
}

/* Every frame's alpha 255: RGBA packed to RGB in place (1), else 0. */
static int a_pack_opaque(unsigned char *px, size_t pixels) {
    for (size_t i = 0; i < pixels; i++)
        if (px[i * 4 + 3] != 255) return 0;
    for (size_t i = 0; i < pixels; i++) {
        px[i * 3] = px[i * 4];
        px[i * 3 + 1] = px[i * 4 + 1];
        px[i * 3 + 2] = px[i * 4 + 2];
    }
    return 1;
}

int ifv__animated_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts, const char *load_opts,
                            int convert, VipsImage **out) {
    if (!opts->all_pages || opts->save_suffix == NULL || strncasecmp(opts->save_suffix, ".gif", 4) != 0 ||
        (opts->extras != NULL && opts->extras->n_candidates > 0) || opts->crop != 0 || opts->linear || convert ||
        len < 6 || memcmp(buf, "GIF8", 4) != 0 || opts->width < 1 || opts->height < 1)
        return 1;
    VipsImage *in = a_new_from_buffer(buf, len, load_opts, "access", A_ACCESS_SEQUENTIAL, NULL);
    if (in == NULL) return -1;
    int w = a_get_width(in), ph = a_get_page_height(in), h = a_get_height(in);
    int pages = ph > 0 ? h / ph : 0;
    /* vips_thumbnail's size for a fitted animation: one shrink for both axes, the page height whole. */
    double shrink = fmax((double)w / opts->width, (double)ph / opts->height);
    int dw = (int)rint(w / shrink), dh = (int)rint(ph / shrink);
    if (pages < 1 || pages * ph != h || shrink <= 1.0 || dw < 1 || dh < 1 || dw >= w || dh >= ph ||
        (size_t)w * (size_t)h > IFV_ANIMATED_MAX_BYTES / 4) {
        a_unref(in);
        return 1;
    }
    VipsImage *img = in, *next = NULL;
    if (a_step(&img, a_colourspace(img, &next, A_INTERPRETATION_sRGB, NULL), next) != 0 ||
        (!a_hasalpha(img) && a_step(&img, a_bandjoin_const1(img, &next, 255.0, NULL), next) != 0) ||
        a_step(&img, a_cast(img, &next, A_FORMAT_UCHAR, NULL), next) != 0 || a_get_bands(img) != 4 ||
        a_get_width(img) != w || a_get_height(img) != h) {
        /* `in` is unref'ed with the first step that succeeded; until then img is in. */
        a_unref(img);
        return -1;
    }
    size_t size = 0;
    unsigned char *px = a_write_to_memory(img, &size);
    if (px == NULL || size != (size_t)w * (size_t)h * 4) {
        if (px) a_free(px);
        a_unref(img);
        return -1;
    }
    int ch = a_pack_opaque(px, (size_t)w * (size_t)h) ? 3 : 4;
    size_t frame_out = (size_t)dw * (size_t)dh * (size_t)ch;
    unsigned char *res = malloc(frame_out * (size_t)pages);
    int rc = res != NULL ? 0 : -1;
    for (int p = 0; rc == 0 && p < pages; p++) {
        ifc_pixels src = { px + (size_t)p * (size_t)w * (size_t)ph * (size_t)ch, w, ph, ch, (size_t)w * (size_t)ch };
        ifc_pixels dst = { 0 };
        if (ifc_resize(&src, dw, dh, &dst) != 0) {
            rc = -1;
            break;
        }
        for (int y = 0; y < dh; y++)
            memcpy(res + (size_t)p * frame_out + (size_t)y * (size_t)dw * (size_t)ch, dst.data + (size_t)y * dst.stride, (size_t)dw * (size_t)ch);
        ifc_free(dst.data);
    }
    a_free(px);
    VipsImage *mem = rc == 0 ? a_new_from_memory_copy(res, frame_out * (size_t)pages, dw, dh * pages, ch, A_FORMAT_UCHAR) : NULL;
    free(res);
    VipsImage *thumb = NULL;
    if (mem == NULL || a_copy(mem, &thumb, "interpretation", A_INTERPRETATION_sRGB, NULL) != 0 || thumb == NULL) {
        if (mem) a_unref(mem);
        a_unref(img);
        return -1;
    }
    a_unref(mem);
    a_set_int(thumb, "page-height", dh);
    a_set_int(thumb, "n-pages", pages);
    a_copy_fields(img, thumb);
    a_unref(img);
    *out = thumb;
    return 0;
}
