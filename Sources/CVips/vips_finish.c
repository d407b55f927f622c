/* vips_finish.c: what happens to a thumbnail between libvips' resize and its saver.
 *
 * - Flatten: a saver without alpha (JPEG) would otherwise drop the alpha band as it is, leaving
 *   what sat under transparent pixels (usually black); the image is flattened onto the caller's
 *   background instead (white by default, chosen in Swift).
 * - Metadata: every field but those an animation needs is removed from the image itself. The
 *   savers' `strip` is not enough: libvips 8.14.1's webpsave ignores it and writes EXIF (GPS,
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

enum { IFV_VIPS_INTERPRETATION_sRGB = 22 };

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

#define FRESOLVE(ptr, name)                                                          \
    do {                                                                             \
        *(void **)(&ptr) = dlsym(handle, name);                                      \
        if (ptr == NULL) {                                                           \
            snprintf(err, errlen, "libvips: missing symbol %s", name);              \
            return -1;                                                               \
        }                                                                            \
    } while (0)

int ifv__finish_resolve(void *handle, char *err, size_t errlen) {
    FRESOLVE(f_copy, "vips_copy");
    FRESOLVE(f_flatten, "vips_flatten");
    FRESOLVE(f_colourspace, "vips_colourspace");
    FRESOLVE(f_get_fields, "vips_image_get_fields");
    FRESOLVE(f_remove, "vips_image_remove");
    FRESOLVE(f_get_typeof, "vips_image_get_typeof");
    FRESOLVE(f_hasalpha, "vips_image_hasalpha");
    FRESOLVE(f_get_bands, "vips_image_get_bands");
    FRESOLVE(f_array_double_new, "vips_array_double_new");
    FRESOLVE(f_area_unref, "vips_area_unref");
    FRESOLVE(f_strfreev, "g_strfreev");
    FRESOLVE(f_unref, "g_object_unref");
    return 0;
}

int ifv__has_profile(VipsImage *img) { return f_get_typeof(img, "icc-profile-data") != 0; }

/* The fields an animation needs to be saved as one (frame height, frame delays, loop count). */
static int ifv_keeps_field(const char *name) {
    static const char *const kept[] = { "page-height", "delay", "loop", "gif-delay", "gif-loop", "n-pages" };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        if (strcmp(name, kept[i]) == 0) return 1;
    }
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
    if (opts->flatten && f_hasalpha(*img) && ifv_flatten(img, opts->background) != 0) return -1;
    /* A copy shares the pixels but has its own metadata table, safe to change. */
    VipsImage *copy = NULL;
    if (f_copy(*img, &copy, NULL) != 0) return -1;
    char **fields = f_get_fields(copy);
    for (char **f = fields; f != NULL && *f != NULL; f++) {
        if (!ifv_keeps_field(*f)) f_remove(copy, *f);  /* built-in fields (width...) are not removable: FALSE */
    }
    if (fields != NULL) f_strfreev(fields);
    f_unref(*img);
    *img = copy;
    return 0;
}
