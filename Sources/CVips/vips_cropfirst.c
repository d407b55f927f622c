/* vips_cropfirst.c: cover with upscale when the scaled image would be too large to build.
 *
 * vips_thumbnail's cover scales the whole source until it fills the box, then crops: for a
 * 65500x2 source and a 300x300 box that is 9,825,000x300 pixels (8.4 GB of RGB) before the crop,
 * whatever the output's size. When that intermediate would be over opts->max_pixels, the part
 * cover keeps is cut out of the source first (its centre, or the attention / entropy crop libvips
 * finds in it) and only that part is scaled to the box: the same picture, from a region no larger
 * than the output. Every other thumbnail is vips_thumbnail's, unchanged (ifv__thumbnail_once).
 */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

typedef int gboolean;
enum { IFV_ACCESS_RANDOM = 0, IFV_ACCESS_SEQUENTIAL = 1, IFV_SIZE_BOTH = 0, IFV_INTERESTING_CENTRE = 1 };

static VipsImage *(*f_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
static int (*f_thumbnail_image)(VipsImage *in, VipsImage **out, int width, ...);
static int (*f_extract_area)(VipsImage *in, VipsImage **out, int left, int top, int width, int height, ...);
static int (*f_smartcrop)(VipsImage *in, VipsImage **out, int width, int height, ...);
static VipsImage *(*f_copy_memory)(VipsImage *in);
static int (*f_get_width)(const VipsImage *image);
static int (*f_get_height)(const VipsImage *image);
static int (*f_get_int)(VipsImage *image, const char *name, int *out);
static unsigned long (*f_get_typeof)(const VipsImage *image, const char *name);
static void (*f_unref)(void *object);

int ifv__cropfirst_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(f_new_from_buffer, "vips_image_new_from_buffer");
    IFV_RESOLVE(f_thumbnail_image, "vips_thumbnail_image");
    IFV_RESOLVE(f_extract_area, "vips_extract_area");
    IFV_RESOLVE(f_smartcrop, "vips_smartcrop");
    IFV_RESOLVE(f_copy_memory, "vips_image_copy_memory");
    IFV_RESOLVE(f_get_width, "vips_image_get_width");
    IFV_RESOLVE(f_get_height, "vips_image_get_height");
    IFV_RESOLVE(f_get_int, "vips_image_get_int");
    IFV_RESOLVE(f_get_typeof, "vips_image_get_typeof");
    IFV_RESOLVE(f_unref, "g_object_unref");
    return 0;
}

/* The source's size as displayed: width and height swapped when its EXIF orientation turns it. */
static int ifv_turned(VipsImage *img) {
    int orientation = 1;
    if (f_get_typeof(img, "orientation") == 0 || f_get_int(img, "orientation", &orientation) != 0) return 0;
    return orientation >= 5 && orientation <= 8;
}

/* The scale cover gives a displayed w x h source (vips_thumbnail's, size=both: the larger ratio). */
static double ifv_cover_scale(double w, double h, const ifv_thumb_opts *opts) {
    double hs = opts->width / w, vs = opts->height / h;
    return hs > vs ? hs : vs;
}

int ifv__cover_intermediate(VipsImage *hdr, const ifv_thumb_opts *opts, double *pixels) {
    *pixels = 0;
    if (!opts->crop || !opts->upscale || opts->all_pages) return 0;
    double w = f_get_width(hdr), h = f_get_height(hdr);
    if (ifv_turned(hdr)) { double t = w; w = h; h = t; }
    if (w < 1 || h < 1) return 0;
    double s = ifv_cover_scale(w, h, opts);
    *pixels = floor(w * s + 0.5) * floor(h * s + 0.5);
    return opts->max_pixels > 0 && *pixels > opts->max_pixels;
}

int ifv__cropfirst_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts, const char *load_opts,
                             int convert, VipsImage **out) {
    *out = NULL;
    /* The centre is cut in one pass; attention and entropy read the source more than once (it is
     * at most --max-pixels, as vips_thumbnail's own smart crop holds its scaled image). */
    int centre = opts->crop == IFV_INTERESTING_CENTRE;
    VipsImage *in = f_new_from_buffer(buf, len, load_opts, "access", centre ? IFV_ACCESS_SEQUENTIAL : IFV_ACCESS_RANDOM, NULL);
    if (in == NULL) return -1;
    int turned = ifv_turned(in);
    double w = f_get_width(in), h = f_get_height(in);
    /* The region cover keeps, in the displayed orientation, then as stored (a centred region
     * stays centred under any flip; a turn swaps its sides). */
    double dw = turned ? h : w, dh = turned ? w : h;
    double s = ifv_cover_scale(dw, dh, opts);
    int cw = (int)fmin(dw, fmax(1, floor(opts->width / s + 0.5)));
    int ch = (int)fmin(dh, fmax(1, floor(opts->height / s + 0.5)));
    int sw = turned ? ch : cw, sh = turned ? cw : ch;
    VipsImage *region = NULL;
    int rc = centre
                 ? f_extract_area(in, &region, ((int)w - sw) / 2, ((int)h - sh) / 2, sw, sh, NULL)
                 : f_smartcrop(in, &region, sw, sh, "interesting", opts->crop, NULL);
    f_unref(in);
    if (rc != 0) return -1;
    /* The region is at most the output's pixels: held in memory, so the upscale reads it freely. */
    VipsImage *held = f_copy_memory(region);
    f_unref(region);
    if (held == NULL) return -1;
    rc = f_thumbnail_image(held, out, opts->width, "height", opts->height, "size", IFV_SIZE_BOTH,
                           "crop", IFV_INTERESTING_CENTRE, "linear", opts->linear ? 1 : 0,
                           convert ? "export_profile" : NULL, "srgb", NULL);
    f_unref(held);
    return rc;
}
