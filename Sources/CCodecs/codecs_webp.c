/* codecs_webp.c: WebP from 8-bit pixels with libwebp alone, set as libvips 8.14's webpsave sets it
 * for a single picture (vips2webp.c: WebPConfigPreset(default, Q), lossless off, alpha_quality 100,
 * method = effort, use_argb off, the RGB or RGBA rows imported as they are, no metadata when
 * stripped). libwebp (libwebp.so.7) is resolved with dlopen on first use. */
#define _GNU_SOURCE
#include "codecs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>

static int (*w_config_init)(WebPConfig *, WebPPreset, float, int);
static int (*w_validate_config)(const WebPConfig *);
static int (*w_picture_init)(WebPPicture *, int);
static int (*w_import_rgb)(WebPPicture *, const uint8_t *, int);
static int (*w_import_rgba)(WebPPicture *, const uint8_t *, int);
static int (*w_encode)(const WebPConfig *, WebPPicture *);
static void (*w_picture_free)(WebPPicture *);
static void (*w_writer_init)(WebPMemoryWriter *);
static int (*w_write)(const uint8_t *, size_t, const WebPPicture *);
static void (*w_writer_clear)(WebPMemoryWriter *);

static pthread_once_t webp_once = PTHREAD_ONCE_INIT;
static int webp_loaded;

#define WRESOLVE(var, name)                                      \
    do {                                                         \
        *(void **)(&var) = dlsym(handle, name);                  \
        if (var == NULL) return;                                 \
    } while (0)

static void ifc_webp_load(void) {
    void *handle = dlopen("libwebp.so.7", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    WRESOLVE(w_config_init, "WebPConfigInitInternal");
    WRESOLVE(w_validate_config, "WebPValidateConfig");
    WRESOLVE(w_picture_init, "WebPPictureInitInternal");
    WRESOLVE(w_import_rgb, "WebPPictureImportRGB");
    WRESOLVE(w_import_rgba, "WebPPictureImportRGBA");
    WRESOLVE(w_encode, "WebPEncode");
    WRESOLVE(w_picture_free, "WebPPictureFree");
    WRESOLVE(w_writer_init, "WebPMemoryWriterInit");
    WRESOLVE(w_write, "WebPMemoryWrite");
    WRESOLVE(w_writer_clear, "WebPMemoryWriterClear");
    webp_loaded = 1;
}

int ifc_webp_available(void) {
    pthread_once(&webp_once, ifc_webp_load);
    return webp_loaded;
}

/* Grey (+ alpha) rows expanded to RGB (A), as libvips converts a one-band image for webpsave. */
static unsigned char *ifc_expand_grey(const ifc_pixels *p, int *stride) {
    const int och = p->channels == 1 ? 3 : 4;
    unsigned char *out = malloc((size_t)p->width * (size_t)p->height * (size_t)och);
    if (out == NULL) return NULL;
    for (int y = 0; y < p->height; y++) {
        const unsigned char *s = p->data + (size_t)y * p->stride;
        unsigned char *d = out + (size_t)y * (size_t)p->width * (size_t)och;
        for (int x = 0; x < p->width; x++, s += p->channels, d += och) {
            d[0] = d[1] = d[2] = s[0];
            if (och == 4) d[3] = s[1];
        }
    }
    *stride = p->width * och;
    return out;
}

/* libvips 8.14.1's webpsave passes every file through WebPMuxAssemble, which writes the extended
 * format's VP8X chunk even for an opaque still (flags 0): written here into `file` (its RIFF
 * header in the first 12 bytes), after which the VP8 chunk follows; the RIFF size becomes `size` - 8. */
enum { IFC_VP8X_SIZE = 18 };
static void ifc_vp8x(unsigned char *file, size_t size, int width, int height) {
    const unsigned riff = (unsigned)(size - 8), w = (unsigned)(width - 1), h = (unsigned)(height - 1);
    unsigned char *c = file + 12;
    file[4] = (unsigned char)riff; file[5] = (unsigned char)(riff >> 8); file[6] = (unsigned char)(riff >> 16); file[7] = (unsigned char)(riff >> 24);
    memcpy(c, "VP8X", 4);
    c[4] = 10; c[5] = c[6] = c[7] = 0;
    c[8] = c[9] = c[10] = c[11] = 0;
    c[12] = (unsigned char)w; c[13] = (unsigned char)(w >> 8); c[14] = (unsigned char)(w >> 16);
    c[15] = (unsigned char)h; c[16] = (unsigned char)(h >> 8); c[17] = (unsigned char)(h >> 16);
}

int ifc_encode_webp(const ifc_pixels *pixels, const ifc_webp_opts *opts, ifc_bytes *out, char *msg, size_t msglen) {
    memset(out, 0, sizeof *out);
    if (msg != NULL && msglen > 0) msg[0] = '\0';
    if (!ifc_webp_available()) return IFC_UNAVAILABLE;
    const ifc_pixels *p = pixels;
    if (p == NULL || p->data == NULL || p->channels < 1 || p->channels > 4 || p->width < 1 || p->height < 1 ||
        p->width > WEBP_MAX_DIMENSION || p->height > WEBP_MAX_DIMENSION ||
        p->stride < (size_t)p->width * (size_t)p->channels || p->stride > (size_t)0x7fffffff)
        return ifc__fail(msg, msglen, "webp: pixels out of range");
    const int quality = opts != NULL && opts->quality > 0 ? (opts->quality > 100 ? 100 : opts->quality) : 75;
    const int method = opts != NULL && opts->method >= 0 ? (opts->method > 6 ? 6 : opts->method) : 4;

    WebPConfig config;
    if (!w_config_init(&config, WEBP_PRESET_DEFAULT, (float)quality, WEBP_ENCODER_ABI_VERSION))
        return ifc__fail(msg, msglen, "webp: config version error");
    config.lossless = 0;
    config.alpha_quality = 100;
    config.method = method;
    if (!w_validate_config(&config)) return ifc__fail(msg, msglen, "webp: invalid configuration");

    const unsigned char *rows = p->data;
    int stride = (int)p->stride;
    unsigned char *expanded = NULL;
    if (p->channels <= 2) {
        expanded = ifc_expand_grey(p, &stride);
        if (expanded == NULL) return ifc__fail(msg, msglen, "webp: out of memory");
        rows = expanded;
    }
    const int alpha = p->channels == 2 || p->channels == 4;

    WebPPicture pic;
    WebPMemoryWriter writer;
    if (!w_picture_init(&pic, WEBP_ENCODER_ABI_VERSION)) {
        free(expanded);
        return ifc__fail(msg, msglen, "webp: picture version error");
    }
    w_writer_init(&writer);
    pic.writer = w_write;
    pic.custom_ptr = &writer;
    pic.use_argb = 0;
    pic.width = p->width;
    pic.height = p->height;
    int ok = (alpha ? w_import_rgba : w_import_rgb)(&pic, rows, stride);
    free(expanded);
    if (!ok) {
        w_picture_free(&pic);
        return ifc__fail(msg, msglen, "webp: picture memory error");
    }
    ok = w_encode(&config, &pic);
    w_picture_free(&pic);
    /* Copied out, so that the caller releases malloc'ed bytes whatever allocator libwebp uses; a
     * simple-format file (RIFF, VP8) gets the extended header webpsave's mux writes (VP8X). */
    const int simple = ok && writer.size >= 20 && memcmp(writer.mem + 12, "VP8 ", 4) == 0;
    const size_t size = writer.size + (simple ? IFC_VP8X_SIZE : 0);
    unsigned char *bytes = ok && writer.size >= 12 && size <= 0xFFFFFFF0u ? malloc(size) : NULL;
    if (bytes != NULL && simple) {
        memcpy(bytes, writer.mem, 12);
        ifc_vp8x(bytes, size, p->width, p->height);
        memcpy(bytes + 12 + IFC_VP8X_SIZE, writer.mem + 12, writer.size - 12);
    } else if (bytes != NULL) {
        memcpy(bytes, writer.mem, writer.size);
    }
    w_writer_clear(&writer);
    if (!ok) return ifc__fail(msg, msglen, "webp: unable to encode");
    if (bytes == NULL) return ifc__fail(msg, msglen, "webp: out of memory");
    out->data = bytes;
    out->length = size;
    return IFC_OK;
}
