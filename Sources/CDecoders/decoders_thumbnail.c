/* decoders_thumbnail.c: a PNG, WebP or GIF source to thumbnail pixels without libvips (see cdecoders.h). */
#include "decoders_internal.h"
#include "ccodecs.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ifd_sniff(const void *buf, size_t len) {
    const unsigned char *p = buf;
    if (p == NULL) return IFD_NONE;
    if (len >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return IFD_PNG;
    if (len >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) return IFD_WEBP;
    if (len >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0)) return IFD_GIF;
    return IFD_NONE;
}

/* vips_thumbnail_calculate_shrink for an upright image, size=down: the one shrink of both axes. */
static double common_shrink(double w, double h, const ifd_opts *opts) {
    double hs = w / opts->width, vs = h / opts->height;
    double s = opts->crop ? (hs < vs ? hs : vs) : (hs > vs ? hs : vs);
    return s < 1 ? 1 : s;
}

int ifd_thumbnail(const void *buf, size_t len, const ifd_opts *opts, ifd_result *res) {
    if (res == NULL) return IFD_DECLINED;
    memset(res, 0, sizeof *res);
    if (opts == NULL || opts->width <= 0 || opts->height <= 0) return IFD_DECLINED;
    int format = ifd_sniff(buf, len);
    ifd_image im;
    int rc = IFD_DECLINED;
    if (format == IFD_PNG) rc = ifd_png_decode(buf, len, opts->max_pixels, &im);
    if (format == IFD_GIF) rc = ifd_gif_decode(buf, len, opts->max_pixels, &im);
    if (format == IFD_WEBP) {
        ifd_box box = {opts->width, opts->height, opts->crop, 0};
        rc = ifd_webp_decode(buf, len, &box, opts->max_pixels, &im);
    }
    if (rc != IFD_OK) return IFD_DECLINED;

    /* Sizes as vips_thumbnail computes them from the loaded image (jpeg_fast.c does the same): the
     * shrink that fits (or, for cover, fills) the box, never below 1, passed to vips_resize as
     * 1/shrink and rounded as its reduce rounds. */
    double lw = im.width, lh = im.height;
    double scale = 1.0 / common_shrink(lw, lh, opts);
    int tw = (int)floor(lw / (1.0 / scale) + 0.5), th = (int)floor(lh / (1.0 / scale) + 0.5);
    if (tw < 1) tw = 1;
    if (th < 1) th = 1;
    if (tw > im.width) tw = im.width;
    if (th > im.height) th = im.height;
    /* Cover: resized so the box is filled, then the centre cropped (vips_smartcrop's centre). */
    int ow = tw, oh = th, cx = 0, cy = 0;
    if (opts->crop) {
        ow = tw < opts->width ? tw : opts->width;
        oh = th < opts->height ? th : opts->height;
        cx = (tw - ow) / 2;
        cy = (th - oh) / 2;
    }
    ifc_pixels resized = {im.pixels, im.width, im.height, im.channels, (size_t)im.width * im.channels};
    if (tw != im.width || th != im.height) {
        ifc_pixels in = resized;
        if (ifc_resize(&in, tw, th, &resized) != 0) {
            ifd_free(im.pixels);
            return IFD_DECLINED;
        }
        ifd_free(im.pixels);
        im.pixels = NULL;
    }
    unsigned char *pixels = resized.data;
    if (ow != tw || oh != th) {
        size_t row = (size_t)ow * im.channels;
        pixels = malloc(row * oh);
        if (pixels != NULL) {
            for (int y = 0; y < oh; y++) memcpy(pixels + (size_t)y * row, resized.data + (size_t)(y + cy) * resized.stride + (size_t)cx * im.channels, row);
        }
        if (resized.data == im.pixels) ifd_free(resized.data); else ifc_free(resized.data);
        if (pixels == NULL) return IFD_DECLINED;
    } else if (resized.data != im.pixels) {
        /* ifc_resize's buffer (malloc'ed too, but released by its own function): copied into ours. */
        size_t size = (size_t)ow * oh * im.channels;
        pixels = malloc(size);
        if (pixels != NULL) memcpy(pixels, resized.data, size);
        ifc_free(resized.data);
        if (pixels == NULL) return IFD_DECLINED;
    }
    res->pixels = pixels;
    res->width = ow;
    res->height = oh;
    res->channels = im.channels;
    res->source_width = im.source_width;
    res->source_height = im.source_height;
    res->pixels_per_metre = im.pixels_per_metre;
    res->frames = im.frames;
    res->format = format;
    return IFD_OK;
}
