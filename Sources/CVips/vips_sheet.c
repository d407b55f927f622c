/* vips_sheet.c: a contact sheet (`imgfetch cache sheet`) with libvips' thumbnail, text, gravity,
 * join and arrayjoin operations, resolved with dlsym from the libvips ifv_load opened (never linked).
 * One sheet at a time per process (the command is single-threaded); errors are read from libvips'
 * process-wide buffer right after the failing call. */
#define _GNU_SOURCE
#include "cvips.h"
#include "vips_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct _VipsImage VipsImage;
typedef struct _VipsArrayDouble VipsArrayDouble;

/* Enum values checked against vips 8.14 headers. */
enum { SHEET_INTERPRETATION_B_W = 26, SHEET_INTERPRETATION_sRGB = 22 };
enum { SHEET_EXTEND_WHITE = 4 };
enum { SHEET_COMPASS_CENTRE = 0 };
enum { SHEET_DIRECTION_VERTICAL = 1 };
enum { SHEET_SIZE_DOWN = 2 };
enum { SHEET_ALIGN_CENTRE = 1 };

static int (*s_thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
static int (*s_text)(VipsImage **out, const char *text, ...);
static int (*s_gravity)(VipsImage *in, VipsImage **out, int direction, int width, int height, ...);
static int (*s_join)(VipsImage *a, VipsImage *b, VipsImage **out, int direction, ...);
static int (*s_arrayjoin)(VipsImage **in, VipsImage **out, int n, ...);
static int (*s_colourspace)(VipsImage *in, VipsImage **out, int space, ...);
static int (*s_flatten)(VipsImage *in, VipsImage **out, ...);
static int (*s_invert)(VipsImage *in, VipsImage **out, ...);
static int (*s_black)(VipsImage **out, int width, int height, ...);
static int (*s_image_write_to_buffer)(VipsImage *in, const char *suffix, void **buf, size_t *size, ...);
static int (*s_hasalpha)(VipsImage *image);
static int (*s_get_width)(const VipsImage *image);
static int (*s_get_height)(const VipsImage *image);
static VipsArrayDouble *(*s_array_double_new)(const double *array, int n);
static void (*s_area_unref)(void *area);
static char *(*s_error_buffer_copy)(void);
static void (*s_error_clear)(void);
static void (*s_object_unref)(void *object);
static void (*s_g_free)(void *mem);

static pthread_once_t sheet_once = PTHREAD_ONCE_INIT;
static int sheet_ready = 0;

#define SHEET_RESOLVE(ptr, name) \
    do { *(void **)(&ptr) = dlsym(h, name); if (ptr == NULL) return; } while (0)

static void sheet_resolve(void) {
    void *h = dlopen("libvips.so.42", RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL) return;
    SHEET_RESOLVE(s_thumbnail_buffer, "vips_thumbnail_buffer");
    SHEET_RESOLVE(s_text, "vips_text");
    SHEET_RESOLVE(s_gravity, "vips_gravity");
    SHEET_RESOLVE(s_join, "vips_join");
    SHEET_RESOLVE(s_arrayjoin, "vips_arrayjoin");
    SHEET_RESOLVE(s_colourspace, "vips_colourspace");
    SHEET_RESOLVE(s_flatten, "vips_flatten");
    SHEET_RESOLVE(s_invert, "vips_invert");
    SHEET_RESOLVE(s_black, "vips_black");
    SHEET_RESOLVE(s_image_write_to_buffer, "vips_image_write_to_buffer");
    SHEET_RESOLVE(s_hasalpha, "vips_image_hasalpha");
    SHEET_RESOLVE(s_get_width, "vips_image_get_width");
    SHEET_RESOLVE(s_get_height, "vips_image_get_height");
    SHEET_RESOLVE(s_array_double_new, "vips_array_double_new");
    SHEET_RESOLVE(s_area_unref, "vips_area_unref");
    SHEET_RESOLVE(s_error_buffer_copy, "vips_error_buffer_copy");
    SHEET_RESOLVE(s_error_clear, "vips_error_clear");
    SHEET_RESOLVE(s_object_unref, "g_object_unref");
    SHEET_RESOLVE(s_g_free, "g_free");
    sheet_ready = 1;
}

static void sheet_error(char *err, size_t errlen, const char *what) {
    char *e = s_error_buffer_copy();
    size_t n = e ? strlen(e) : 0;
    while (n > 0 && (e[n - 1] == '\n' || e[n - 1] == ' ')) e[--n] = '\0';
    snprintf(err, errlen, "%s%s%s", what, n ? ": " : "", n ? e : "");
    if (e) s_g_free(e);
}

static void unref(VipsImage **img) {
    if (*img) { s_object_unref(*img); *img = NULL; }
}

/* `in` (consumed) as 3-band sRGB uchar on white: alpha flattened, grey expanded. */
static int sheet_srgb(VipsImage *in, VipsImage **out, VipsArrayDouble *white) {
    VipsImage *flat = NULL;
    if (s_hasalpha(in)) {
        if (s_flatten(in, &flat, "background", white, NULL)) { s_object_unref(in); return -1; }
        s_object_unref(in);
        in = flat;
    }
    int rc = s_colourspace(in, out, SHEET_INTERPRETATION_sRGB, NULL);
    s_object_unref(in);
    return rc;
}

/* The label on one line (vips_text without a width does not wrap): one wider than the picture is
 * cut, character by character (an entity such as &amp; counts as one), in the middle: both ends
 * stay, where labels differ (the folder a unique suffix starts with, the file name it ends with),
 * joined by an ellipsis, rather than wrapped onto lines the cell has no room for (they were
 * clipped top and bottom). */
static int sheet_label(const char *markup, const ifv_sheet_opts *o, VipsImage **out) {
    if (s_text(out, markup, "dpi", o->dpi, NULL)) return -1;
    int width = s_get_width(*out);
    if (width <= o->size) return 0;
    size_t len = strlen(markup);
    size_t *ends = malloc((len + 1) * sizeof *ends);
    char *cut = malloc(len + 4);
    int rc = -1, n = 0;
    if (ends == NULL || cut == NULL) goto done;
    for (size_t i = 0; i < len;) {
        size_t j = i + 1;
        const char *semi = markup[i] == '&' ? strchr(markup + i, ';') : NULL;
        if (semi != NULL) j = (size_t)(semi - markup) + 1;
        else while (j < len && ((unsigned char)markup[j] & 0xC0) == 0x80) j++;
        ends[n++] = j;
        i = j;
    }
    /* First guess by proportion, then one character less until it fits: the first keep / 2
     * characters, the ellipsis, the last keep - keep / 2. */
    for (int keep = (int)((long)n * o->size / width); keep >= 0; keep--) {
        int head = keep / 2, tail = keep - head;
        size_t end = head > 0 ? ends[head - 1] : 0;
        size_t from = tail > 0 ? ends[n - tail - 1] : len;   /* keep < n: tail <= n - 1 */
        memcpy(cut, markup, end);
        memcpy(cut + end, "\xE2\x80\xA6", 3);   /* U+2026 */
        memcpy(cut + end + 3, markup + from, len - from);
        cut[end + 3 + (len - from)] = '\0';
        VipsImage *t = NULL;
        if (s_text(&t, cut, "dpi", o->dpi, NULL)) goto done;
        if (s_get_width(t) <= o->size || keep == 0) {
            s_object_unref(*out);
            *out = t;
            rc = 0;
            break;
        }
        s_object_unref(t);
    }
done:
    free(ends);
    free(cut);
    return rc;
}

/* One cell: the thumbnail centred in size x size, the label centred below in size x label_height,
 * with pad pixels of white around. A picture that does not decode leaves its box white. */
static int sheet_cell(const ifv_sheet_item *item, const ifv_sheet_opts *o, VipsArrayDouble *white,
                      VipsImage **cell, char *err, size_t errlen) {
    VipsImage *thumb = NULL, *rgb = NULL, *box = NULL, *text = NULL, *ink = NULL, *label = NULL,
              *label_rgb = NULL, *joined = NULL;
    int rc = -1;
    int inner_w = o->size + 2 * o->pad;
    if (item->len > 0 &&
        s_thumbnail_buffer((void *)item->data, item->len, &thumb, o->size, "height", o->size,
                           "size", SHEET_SIZE_DOWN, "option_string", "fail_on=truncated", NULL) == 0 &&
        sheet_srgb(thumb, &rgb, white) == 0) {
        thumb = NULL;
    } else {
        thumb = NULL;
        s_error_clear();
        if (s_black(&rgb, 1, 1, "bands", 3, NULL)) { sheet_error(err, errlen, "black"); goto done; }
    }
    if (s_gravity(rgb, &box, SHEET_COMPASS_CENTRE, inner_w, o->size + 2 * o->pad,
                  "extend", SHEET_EXTEND_WHITE, NULL)) { sheet_error(err, errlen, "gravity"); goto done; }
    if (item->label_markup && item->label_markup[0]) {
        if (sheet_label(item->label_markup, o, &text)) { sheet_error(err, errlen, "text"); goto done; }
        if (s_invert(text, &ink, NULL)) { sheet_error(err, errlen, "invert"); goto done; }
    } else if (s_black(&ink, 1, 1, NULL)) { sheet_error(err, errlen, "black"); goto done; }
    if (s_gravity(ink, &label, SHEET_COMPASS_CENTRE, inner_w, o->label_height + o->pad,
                  "extend", SHEET_EXTEND_WHITE, NULL)) { sheet_error(err, errlen, "gravity"); goto done; }
    /* The label is one band of B_W: as sRGB, three equal bands. */
    if (s_colourspace(label, &label_rgb, SHEET_INTERPRETATION_sRGB, "source_space", SHEET_INTERPRETATION_B_W, NULL)) {
        sheet_error(err, errlen, "colourspace"); goto done;
    }
    if (s_join(box, label_rgb, &joined, SHEET_DIRECTION_VERTICAL, NULL)) { sheet_error(err, errlen, "join"); goto done; }
    *cell = joined;
    joined = NULL;
    rc = 0;
done:
    unref(&thumb); unref(&rgb); unref(&box); unref(&text); unref(&ink); unref(&label); unref(&label_rgb); unref(&joined);
    return rc;
}

int ifv_contact_sheet(const ifv_sheet_item *items, int n, const ifv_sheet_opts *o,
                      void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen) {
    *out = NULL; *out_len = 0;
    if (ifv_load(err, errlen) != 0) return -1;
    pthread_once(&sheet_once, sheet_resolve);
    if (!sheet_ready) { snprintf(err, errlen, "this libvips lacks an operation the contact sheet needs"); return -1; }
    if (n < 1 || o->columns < 1 || o->size < 1) { snprintf(err, errlen, "nothing to put on the sheet"); return -1; }
    int modules = ifv__modules_for_suffix(o->save_suffix);   /* the heif/jxl modules its pictures need */
    for (int i = 0; i < n; i++) modules |= ifv__modules_for_bytes(items[i].data, items[i].len);
    ifv__need_modules(modules);
    double white_value[3] = {255, 255, 255};
    VipsArrayDouble *white = s_array_double_new(white_value, 3);
    VipsImage **cells = calloc((size_t)n, sizeof *cells);
    VipsImage *sheet = NULL;
    int rc = -1, made = 0;
    if (cells == NULL) { snprintf(err, errlen, "out of memory"); goto done; }
    for (; made < n; made++) {
        if (sheet_cell(&items[made], o, white, &cells[made], err, errlen)) goto done;
    }
    if (s_arrayjoin(cells, &sheet, n, "across", o->columns < n ? o->columns : n, "background", white,
                    "halign", SHEET_ALIGN_CENTRE, NULL)) {
        sheet_error(err, errlen, "arrayjoin"); goto done;
    }
    if (s_image_write_to_buffer(sheet, o->save_suffix, out, out_len, "Q", o->quality > 0 ? o->quality : 85, NULL)) {
        /* Savers without Q (png) refuse it: try again without. */
        s_error_clear();
        if (s_image_write_to_buffer(sheet, o->save_suffix, out, out_len, NULL)) { sheet_error(err, errlen, "save"); goto done; }
    }
    *out_w = s_get_width(sheet);
    *out_h = s_get_height(sheet);
    rc = 0;
done:
    for (int i = 0; i < made && cells; i++) unref(&cells[i]);
    free(cells);
    unref(&sheet);
    if (white) s_area_unref(white);
    return rc;
}
