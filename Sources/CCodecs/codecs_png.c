/* codecs_png.c: PNG from 8-bit pixels with libpng alone, set as libvips 8.14's pngsave sets it
 * (vipspng.c: compression 6, filter none, not interlaced, pHYs from the resolution, nothing else
 * when stripped). libpng (libpng16.so.16) is resolved with dlopen on first use. */
#define _GNU_SOURCE
#include "codecs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

static png_structp (*p_create_write_struct)(png_const_charp, png_voidp, png_error_ptr, png_error_ptr);
static png_infop (*p_create_info_struct)(png_const_structrp);
static void (*p_destroy_write_struct)(png_structpp, png_infopp);
static void (*p_set_write_fn)(png_structrp, png_voidp, png_rw_ptr, png_flush_ptr);
static png_voidp (*p_get_io_ptr)(png_const_structrp);
static png_voidp (*p_get_error_ptr)(png_const_structrp);
static void (*p_set_IHDR)(png_const_structrp, png_inforp, png_uint_32, png_uint_32, int, int, int, int, int);
static void (*p_set_pHYs)(png_const_structrp, png_inforp, png_uint_32, png_uint_32, int);
static void (*p_set_compression_level)(png_structrp, int);
static void (*p_set_filter)(png_structrp, int, int);
static void (*p_write_info)(png_structrp, png_const_inforp);
static void (*p_write_row)(png_structrp, png_const_bytep);
static void (*p_write_end)(png_structrp, png_inforp);

static pthread_once_t png_once = PTHREAD_ONCE_INIT;
static int png_loaded;

#define PRESOLVE(var, name)                                      \
    do {                                                         \
        *(void **)(&var) = dlsym(handle, name);                  \
        if (var == NULL) return;                                 \
    } while (0)

static void ifc_png_load(void) {
    void *handle = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    PRESOLVE(p_create_write_struct, "png_create_write_struct");
    PRESOLVE(p_create_info_struct, "png_create_info_struct");
    PRESOLVE(p_destroy_write_struct, "png_destroy_write_struct");
    PRESOLVE(p_set_write_fn, "png_set_write_fn");
    PRESOLVE(p_get_io_ptr, "png_get_io_ptr");
    PRESOLVE(p_get_error_ptr, "png_get_error_ptr");
    PRESOLVE(p_set_IHDR, "png_set_IHDR");
    PRESOLVE(p_set_pHYs, "png_set_pHYs");
    PRESOLVE(p_set_compression_level, "png_set_compression_level");
    PRESOLVE(p_set_filter, "png_set_filter");
    PRESOLVE(p_write_info, "png_write_info");
    PRESOLVE(p_write_row, "png_write_row");
    PRESOLVE(p_write_end, "png_write_end");
    png_loaded = 1;
}

int ifc_png_available(void) {
    pthread_once(&png_once, ifc_png_load);
    return png_loaded;
}

/* One encode's state: libpng's errors longjmp here (its error_ptr), the bytes grow in `buf`. */
struct ifc_png_write {
    jmp_buf jump;
    char message[128];
    unsigned char *buf;
    size_t len, cap;
    int oom;
};

static void ifc_png_error(png_structp png, png_const_charp text) {
    struct ifc_png_write *w = p_get_error_ptr(png);
    snprintf(w->message, sizeof w->message, "png: %s", text != NULL ? text : "error");
    longjmp(w->jump, 1);
}

static void ifc_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void ifc_png_write_data(png_structp png, png_bytep data, size_t len) {
    struct ifc_png_write *w = p_get_io_ptr(png);
    if (len > w->cap - w->len) {
        size_t cap = w->cap < 4096 ? 4096 : w->cap;
        while (cap - w->len < len) {
            if (cap > ((size_t)-1) / 2) { w->oom = 1; ifc_png_error(png, "out of memory"); }
            cap *= 2;
        }
        unsigned char *grown = realloc(w->buf, cap);
        if (grown == NULL) { w->oom = 1; ifc_png_error(png, "out of memory"); }
        w->buf = grown;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, data, len);
    w->len += len;
}

static void ifc_png_flush(png_structp png) { (void)png; }

int ifc_encode_png(const ifc_pixels *pixels, const ifc_png_opts *opts, ifc_bytes *out, char *msg, size_t msglen) {
    memset(out, 0, sizeof *out);
    if (msg != NULL && msglen > 0) msg[0] = '\0';
    if (!ifc_png_available()) return IFC_UNAVAILABLE;
    const ifc_pixels *p = pixels;
    /* libpng's own limit is 2^31 - 1 a side (PNG_UINT_31_MAX); libvips refuses above 10,000,000 too. */
    if (p == NULL || p->data == NULL || p->channels < 1 || p->channels > 4 || p->width < 1 || p->height < 1 ||
        p->width > 10000000 || p->height > 10000000 || p->stride < (size_t)p->width * (size_t)p->channels)
        return ifc__fail(msg, msglen, "png: pixels out of range");
    static const int types[] = { PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA };
    const int level = opts != NULL && opts->compression >= 0 ? (opts->compression > 9 ? 9 : opts->compression) : 6;
    const int ppm = opts != NULL && opts->pixels_per_metre > 0 ? opts->pixels_per_metre : 0;

    struct ifc_png_write w;
    memset(&w, 0, sizeof w);
    /* volatile: set after setjmp and read after a longjmp. */
    png_structp volatile png = p_create_write_struct(PNG_LIBPNG_VER_STRING, &w, ifc_png_error, ifc_png_warning);
    if (png == NULL) return ifc__fail(msg, msglen, "png: out of memory");
    png_infop volatile info = NULL;
    if (setjmp(w.jump)) {
        png_structp s = png;
        png_infop i = info;
        p_destroy_write_struct(&s, i != NULL ? &i : NULL);
        /* w's address went to libpng, so its fields live in memory: what the callbacks set is there. */
        free(w.buf);
        return ifc__fail(msg, msglen, w.message);
    }
    info = p_create_info_struct(png);
    if (info == NULL) ifc_png_error(png, "out of memory");
    p_set_write_fn(png, &w, ifc_png_write_data, ifc_png_flush);
    p_set_IHDR(png, info, (png_uint_32)p->width, (png_uint_32)p->height, 8, types[p->channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (ppm > 0) p_set_pHYs(png, info, (png_uint_32)ppm, (png_uint_32)ppm, PNG_RESOLUTION_METER);
    p_set_compression_level(png, level);
    p_set_filter(png, 0, PNG_FILTER_NONE);
    p_write_info(png, info);
    for (int y = 0; y < p->height; y++) p_write_row(png, p->data + (size_t)y * p->stride);
    p_write_end(png, info);
    png_structp s = png;
    png_infop i = info;
    p_destroy_write_struct(&s, &i);
    out->data = w.buf;
    out->length = w.len;
    return IFC_OK;
}
