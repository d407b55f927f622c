/* vips_outputs.c: what one thumbnail gives besides its one encoded file.
 *
 * - -f auto: the thumbnail is decoded once into memory and each candidate saver encodes those
 *   same pixels (JPEG with optimised Huffman tables); the smallest output is kept. A picture with transparency only goes to savers that
 *   keep alpha; an alpha band that is 255 everywhere is dropped first (the picture is opaque).
 * - Placeholders: the thumbnail's pixels fitted inside a small box (100x100 for ThumbHash), as
 *   8-bit sRGB RGBA, from the same in-memory image; or from encoded bytes (a cache hit, an
 *   original handed out), by a shrink-on-load thumbnail.
 * - Pixels made without libvips (the JPEG path's thumbnail) encoded by a saver libwebp and libpng
 *   do not replace (AVIF), from memory.
 * - GIF: gifsave's libimagequant runs at effort 4, not its default 7 (IFV_GIF_EFFORT).
 */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef int gboolean;

enum { IFV_SIZE_DOWN = 2, IFV_INTERPRETATION_sRGB = 22, IFV_INTERPRETATION_B_W = 1, IFV_FORMAT_UCHAR = 0 };

static VipsImage *(*o_copy_memory)(VipsImage *in);
static int (*o_write_to_buffer)(VipsImage *in, const char *suffix, void **buf, size_t *size, ...);
static int (*o_extract_band)(VipsImage *in, VipsImage **out, int band, ...);
static int (*o_min)(VipsImage *in, double *out, ...);
static int (*o_thumbnail_image)(VipsImage *in, VipsImage **out, int width, ...);
static int (*o_thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
static VipsImage *(*o_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
static int (*o_colourspace)(VipsImage *in, VipsImage **out, int space, ...);
static int (*o_bandjoin_const1)(VipsImage *in, VipsImage **out, double c, ...);
static int (*o_cast)(VipsImage *in, VipsImage **out, int format, ...);
static int (*o_crop)(VipsImage *in, VipsImage **out, int left, int top, int width, int height, ...);
static void *(*o_write_to_memory)(VipsImage *in, size_t *size);
static VipsImage *(*o_new_from_memory)(const void *data, size_t size, int width, int height, int bands, int format);
static int (*o_copy)(VipsImage *in, VipsImage **out, ...);
static gboolean (*o_hasalpha)(VipsImage *image);
static int (*o_get_bands)(const VipsImage *image);
static int (*o_get_width)(const VipsImage *image);
static int (*o_get_page_height)(VipsImage *image);
static int (*o_get_height)(const VipsImage *image);
static void (*o_error)(const char *domain, const char *fmt, ...);
static void (*o_unref)(void *object);
static void (*o_free)(void *mem);

int ifv__outputs_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(o_copy_memory, "vips_image_copy_memory");
    IFV_RESOLVE(o_write_to_buffer, "vips_image_write_to_buffer");
    IFV_RESOLVE(o_extract_band, "vips_extract_band");
    IFV_RESOLVE(o_min, "vips_min");
    IFV_RESOLVE(o_thumbnail_image, "vips_thumbnail_image");
    IFV_RESOLVE(o_thumbnail_buffer, "vips_thumbnail_buffer");
    IFV_RESOLVE(o_new_from_buffer, "vips_image_new_from_buffer");
    IFV_RESOLVE(o_colourspace, "vips_colourspace");
    IFV_RESOLVE(o_bandjoin_const1, "vips_bandjoin_const1");
    IFV_RESOLVE(o_cast, "vips_cast");
    IFV_RESOLVE(o_crop, "vips_crop");
    IFV_RESOLVE(o_write_to_memory, "vips_image_write_to_memory");
    IFV_RESOLVE(o_new_from_memory, "vips_image_new_from_memory");
    IFV_RESOLVE(o_copy, "vips_copy");
    IFV_RESOLVE(o_hasalpha, "vips_image_hasalpha");
    IFV_RESOLVE(o_get_bands, "vips_image_get_bands");
    IFV_RESOLVE(o_get_width, "vips_image_get_width");
    IFV_RESOLVE(o_get_page_height, "vips_image_get_page_height");
    IFV_RESOLVE(o_get_height, "vips_image_get_height");
    IFV_RESOLVE(o_error, "vips_error");
    IFV_RESOLVE(o_unref, "g_object_unref");
    IFV_RESOLVE(o_free, "g_free");
    return 0;
}

/* gifsave's effort (1-10, libvips' default 7): libimagequant's palette search is most of an animated
 * GIF's cost (87% of a 20-frame 800x600 -> 320x240 thumbnail at 7). 4 is the lowest that keeps every
 * GIF of scripts/bench/make-gifs.py's six within 10% of the size at 7 (the largest growth 1.4%; at 1-3,
 * libimagequant's fastest speeds, a smooth cross-fade grows 40%). */
#define IFV_GIF_EFFORT "4"

/* `suffix` with gifsave's effort when it names the GIF saver (".gif[strip]" -> ".gif[effort=4,strip]"),
 * into dst; else suffix itself. */
static const char *ifv_gif_effort(const char *suffix, char *dst, size_t dstlen) {
    if (strncasecmp(suffix, ".gif[", 5) != 0 || strstr(suffix, "effort=") != NULL) return suffix;
    int n = snprintf(dst, dstlen, ".gif[effort=" IFV_GIF_EFFORT ",%s", suffix + 5);
    return (n < 0 || (size_t)n >= dstlen) ? suffix : dst;
}

/* Replaces *img by `next` when the step succeeded (rc 0). */
static int ifv_step(VipsImage **img, int rc, VipsImage *next) {
    if (rc != 0 || next == NULL) return -1;
    o_unref(*img);
    *img = next;
    return 0;
}

/* `in`'s first frame fitted inside side x side as 8-bit sRGB RGBA, into a vips buffer. */
static int ifv_rgba_of(VipsImage *in, int side, void **out, int *out_w, int *out_h) {
    VipsImage *img = NULL, *next = NULL;
    int ph = o_get_page_height(in), w = o_get_width(in);
    if (o_crop(in, &img, 0, 0, w, ph, NULL) != 0) return -1;
    if (ifv_step(&img, o_thumbnail_image(img, &next, side, "height", side, "size", IFV_SIZE_DOWN, NULL), next) != 0 ||
        ifv_step(&img, o_colourspace(img, &next, IFV_INTERPRETATION_sRGB, NULL), next) != 0 ||
        (!o_hasalpha(img) && ifv_step(&img, o_bandjoin_const1(img, &next, 255.0, NULL), next) != 0) ||
        ifv_step(&img, o_cast(img, &next, IFV_FORMAT_UCHAR, NULL), next) != 0 || o_get_bands(img) != 4) {
        o_unref(img);
        return -1;
    }
    size_t size = 0;
    void *pixels = o_write_to_memory(img, &size);
    int pw = o_get_width(img), phh = o_get_height(img);
    o_unref(img);
    if (pixels == NULL || size != (size_t)pw * (size_t)phh * 4) {
        if (pixels) o_free(pixels);
        return -1;
    }
    *out = pixels;
    *out_w = pw;
    *out_h = phh;
    return 0;
}

/* 1 when the alpha band is below 255 somewhere, 0 when it is opaque, -1 on failure. */
static int ifv_transparent(VipsImage *img) {
    if (!o_hasalpha(img)) return 0;
    VipsImage *alpha = NULL;
    double min = 0;
    if (o_extract_band(img, &alpha, o_get_bands(img) - 1, NULL) != 0) return -1;
    int rc = o_min(alpha, &min, NULL);
    o_unref(alpha);
    return rc != 0 ? -1 : min < 255;
}

/* -f auto: every candidate that suits the picture encodes it; the smallest is kept. */
static int ifv_smallest(VipsImage **img, const ifv_thumb_opts *opts, ifv_thumb_extras *x, void **out, size_t *out_len) {
    int transparent = ifv_transparent(*img);
    if (transparent < 0) return -1;
    if (!transparent && o_hasalpha(*img)) {
        VipsImage *next = NULL;
        if (ifv_step(img, o_extract_band(*img, &next, 0, "n", o_get_bands(*img) - 1, NULL), next) != 0) return -1;
    }
    void *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < x->n_candidates; i++) {
        if (transparent && !x->candidate_alpha[i]) continue;
        if (!transparent && x->candidate_alpha[i] == 2) continue;
        char suffix[160];
        if (ifv__suffix(x->candidates[i], opts->quality, !opts->keep_exif && !opts->keep_icc, suffix, sizeof suffix) != 0) continue;
        /* The smallest file is the point: JPEG's Huffman tables optimised for these pixels (lossless). */
        size_t n = strlen(suffix);
        if (strncasecmp(suffix, ".jpg[", 5) == 0 && n > 0 && suffix[n - 1] == ']' && n + 17 < sizeof suffix) {
            memcpy(suffix + n - 1, ",optimize_coding]", 18);
        }
        void *buf = NULL;
        size_t len = 0;
        char gif[192];
        if (o_write_to_buffer(*img, ifv_gif_effort(suffix, gif, sizeof gif), &buf, &len, NULL) != 0 || buf == NULL) {
            if (buf) o_free(buf);
            if (best) o_free(best);
            return -1;
        }
        if (best == NULL || len < best_len) {
            if (best) o_free(best);
            best = buf;
            best_len = len;
            x->chosen = i;
        } else {
            o_free(buf);
        }
    }
    if (best == NULL) {
        o_error("imgfetch", "%s", "the picture has transparency and no candidate format keeps alpha");
        return -1;
    }
    *out = best;
    *out_len = best_len;
    return 0;
}

int ifv__save(VipsImage *thumb, const ifv_thumb_opts *opts, const char *suffix, void **out, size_t *out_len) {
    char gif[192];
    suffix = ifv_gif_effort(suffix, gif, sizeof gif);
    ifv_thumb_extras *x = opts->extras;
    if (x == NULL || (x->n_candidates <= 0 && x->pixels_side <= 0)) {
        return o_write_to_buffer(thumb, suffix, out, out_len, NULL);
    }
    x->chosen = 0;
    x->pixels = NULL;
    /* Decoded once: the savers and the placeholder read these pixels. */
    VipsImage *mem = o_copy_memory(thumb);
    if (mem == NULL) return -1;
    int rc = x->n_candidates > 0 ? ifv_smallest(&mem, opts, x, out, out_len)
                                 : o_write_to_buffer(mem, suffix, out, out_len, NULL);
    if (rc == 0 && x->pixels_side > 0 &&
        ifv_rgba_of(mem, x->pixels_side, &x->pixels, &x->pixels_width, &x->pixels_height) != 0) {
        x->pixels = NULL;   /* no placeholder; the caller computes it from the output */
    }
    o_unref(mem);
    return rc;
}

int ifv__rgba_pixels_once(const void *buf, size_t len, int side, void **out, int *out_w, int *out_h, char *err, size_t errlen) {
    *out = NULL;
    if (buf == NULL || len == 0 || side <= 0) {
        snprintf(err, errlen, "empty input: not an image");
        return -1;
    }
    VipsImage *hdr = o_new_from_buffer(buf, len, "", "access", 1, NULL);
    if (hdr == NULL) {
        ifv__take_error(err, errlen, "cannot read image header");
        return -1;
    }
    int tagged = ifv__has_profile(hdr) && !ifv__profile_unusable(hdr, NULL, 0);
    o_unref(hdr);
    VipsImage *thumb = NULL;
    int rc = o_thumbnail_buffer((void *)buf, len, &thumb, side, "height", side, "size", IFV_SIZE_DOWN,
                                tagged ? "export_profile" : NULL, "srgb", NULL);
    if (rc != 0 || thumb == NULL || ifv_rgba_of(thumb, side, out, out_w, out_h) != 0) {
        if (thumb) o_unref(thumb);
        ifv__take_error(err, errlen, "cannot decode the image");
        return -1;
    }
    o_unref(thumb);
    ifv__error_clear();
    return 0;
}

int ifv__save_pixels_once(const void *pixels, int width, int height, int bands, const char *suffix, int quality,
                          void **out, size_t *out_len, char *err, size_t errlen) {
    *out = NULL;
    *out_len = 0;
    char save[160];
    if (pixels == NULL || width < 1 || height < 1 || (bands != 1 && bands != 3) ||
        ifv__suffix(suffix, quality, 1, save, sizeof save) != 0) {
        snprintf(err, errlen, "cannot save these pixels");
        return -1;
    }
    /* The pixels stay the caller's: libvips reads them during the save, which ends before this returns. */
    VipsImage *mem = o_new_from_memory(pixels, (size_t)width * (size_t)height * (size_t)bands, width, height, bands, IFV_FORMAT_UCHAR);
    VipsImage *img = NULL;
    /* What a thumbnail of the same JPEG is: sRGB, or grey (the saver converts it as it would). */
    int rc = mem == NULL ? -1 : o_copy(mem, &img, "interpretation", bands == 3 ? IFV_INTERPRETATION_sRGB : IFV_INTERPRETATION_B_W, NULL);
    if (mem != NULL) o_unref(mem);
    if (rc == 0 && img != NULL) rc = o_write_to_buffer(img, save, out, out_len, NULL);
    if (img != NULL) o_unref(img);
    if (rc != 0 || *out == NULL) {
        if (*out != NULL) o_free(*out);
        *out = NULL;
        ifv__take_error(err, errlen, "cannot save the thumbnail");
        return -1;
    }
    ifv__error_clear();
    return 0;
}
