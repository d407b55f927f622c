/* vips_finish.c: what happens to a thumbnail between libvips' resize and its saver.
 *
 * - Flatten: a saver without alpha (JPEG) would otherwise drop the alpha band as it is, leaving
 *   what sat under transparent pixels (usually black); the image is flattened onto the caller's
 *   background instead (white by default, chosen in Swift).
 * - Metadata: every field but those an animation needs (and those --keep-metadata keeps) is
 *   removed from the image itself. The savers' `strip` is not enough: libvips 8.14.1's webpsave ignores it and writes EXIF (GPS,
 *   camera, serial), XMP and the ICC profile. With the fields gone, no saver has anything to copy.
 */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int gboolean;
typedef unsigned long GType;
typedef struct _VipsArrayDouble VipsArrayDouble;

enum { IFV_VIPS_INTERPRETATION_CMYK = 15, IFV_VIPS_INTERPRETATION_sRGB = 22 };

static int (*f_copy)(VipsImage *in, VipsImage **out, ...);
static int (*f_flatten)(VipsImage *in, VipsImage **out, ...);
static int (*f_colourspace)(VipsImage *in, VipsImage **out, int space, ...);
static char **(*f_get_fields)(VipsImage *image);
static gboolean (*f_remove)(VipsImage *image, const char *name);
static GType (*f_get_typeof)(const VipsImage *image, const char *name);
static gboolean (*f_hasalpha)(VipsImage *image);
static int (*f_get_bands)(const VipsImage *image);
static VipsArrayDouble *(*f_array_double_new)(const double *array, int n);
static void (*f_area_unref)(void *area);
static void (*f_strfreev)(char **list);
static void (*f_unref)(void *object);
static int (*f_sharpen)(VipsImage *in, VipsImage **out, ...);
static int (*f_get_interpretation)(const VipsImage *image);

int ifv__finish_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(f_copy, "vips_copy");
    IFV_RESOLVE(f_flatten, "vips_flatten");
    IFV_RESOLVE(f_colourspace, "vips_colourspace");
    IFV_RESOLVE(f_get_fields, "vips_image_get_fields");
    IFV_RESOLVE(f_remove, "vips_image_remove");
    IFV_RESOLVE(f_get_typeof, "vips_image_get_typeof");
    IFV_RESOLVE(f_hasalpha, "vips_image_hasalpha");
    IFV_RESOLVE(f_get_bands, "vips_image_get_bands");
    IFV_RESOLVE(f_array_double_new, "vips_array_double_new");
    IFV_RESOLVE(f_area_unref, "vips_area_unref");
    IFV_RESOLVE(f_strfreev, "g_strfreev");
    IFV_RESOLVE(f_unref, "g_object_unref");
    IFV_RESOLVE(f_sharpen, "vips_sharpen");
    IFV_RESOLVE(f_get_interpretation, "vips_image_get_interpretation");
    return 0;
}

int ifv__has_profile(VipsImage *img) { return f_get_typeof(img, "icc-profile-data") != 0; }

int ifv__is_cmyk(VipsImage *img) { return f_get_interpretation(img) == IFV_VIPS_INTERPRETATION_CMYK; }

static int ifv_in(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (strcmp(name, list[i]) == 0) return 1;
    }
    return 0;
}

/* The fields an animation needs to be saved as one (frame height, frame delays, loop count); with
 * keep_exif, the EXIF blob and its Copyright and Artist fields: a saver rebuilds the blob from it,
 * dropping every tag whose exif-ifd* field is gone (GPS, serials, maker notes...). Setting the two
 * fields alone on a fresh blob garbles their strings, hence the blob is kept. With keep_icc, the
 * profile (ifv_thumbnail did not convert the pixels to sRGB then). */
static int ifv_keeps_field(const char *name, const ifv_thumb_opts *opts) {
    static const char *const kept[] = { "page-height", "delay", "loop", "gif-delay", "gif-loop", "n-pages" };
    static const char *const exif[] = { "exif-data", "exif-ifd0-Copyright", "exif-ifd0-Artist" };
    if (ifv_in(name, kept, sizeof kept / sizeof kept[0])) return 1;
    if (opts->keep_exif && ifv_in(name, exif, sizeof exif / sizeof exif[0])) return 1;
    return opts->keep_icc && strcmp(name, "icc-profile-data") == 0;
}

/* vips_sharpen with sigma 1 and its other defaults (x1 2, y2 10, y3 20, m1 0, m2 3): it sharpens
 * L in LabS and converts back to the image's own interpretation, alpha kept. Its default sigma,
 * 0.5, makes a one-element mask in 8.14 (min_ampl 0.2), which leaves the picture as it is. */
static int ifv_sharpen(VipsImage **img) {
    VipsImage *out = NULL;
    if (f_sharpen(*img, &out, "sigma", 1.0, NULL) != 0) return -1;
    f_unref(*img);
    *img = out;
    return 0;
}

static int ifv_flatten(VipsImage **img, const double background[3]) {
    VipsImage *in = *img, *rgb = NULL, *out = NULL;
    int grey = background[0] == background[1] && background[1] == background[2];
    /* A grey image (1 band + alpha) takes one background value; a colour needs it in sRGB first. */
    if (f_get_bands(in) < 3 && !grey) {
        if (f_colourspace(in, &rgb, IFV_VIPS_INTERPRETATION_sRGB, NULL) != 0) return -1;
        in = rgb;
    }
    VipsArrayDouble *bg = f_array_double_new(background, f_get_bands(in) < 3 ? 1 : 3);
    int rc = f_flatten(in, &out, "background", bg, NULL);
    f_area_unref(bg);
    if (rgb != NULL) f_unref(rgb);
    if (rc != 0) return -1;
    f_unref(*img);
    *img = out;
    return 0;
}

int ifv__finish(VipsImage **img, const ifv_thumb_opts *opts) {
    if (opts->sharpen && ifv_sharpen(img) != 0) return -1;
    if (opts->flatten && f_hasalpha(*img) && ifv_flatten(img, opts->background) != 0) return -1;
    /* A copy shares the pixels but has its own metadata table, safe to change. */
    VipsImage *copy = NULL;
    if (f_copy(*img, &copy, NULL) != 0) return -1;
    char **fields = f_get_fields(copy);
    for (char **f = fields; f != NULL && *f != NULL; f++) {
        if (!ifv_keeps_field(*f, opts)) f_remove(copy, *f);  /* built-in fields (width...) are not removable: FALSE */
    }
    if (fields != NULL) f_strfreev(fields);
    f_unref(*img);
    *img = copy;
    return 0;
}
