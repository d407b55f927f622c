/* webp_decode.c: still WebP -> 8-bit RGB/RGBA with libwebp alone, scaled on decode to the size
 * libvips 8.14's thumbnail loads (see cdecoders.h). */
#include "decoders_internal.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <webp/decode.h>

#define WEBP_SYMBOLS(X) X(WebPGetFeaturesInternal) X(WebPInitDecoderConfigInternal) X(WebPDecode) X(WebPFreeDecBuffer)

static struct {
#define X(name) __typeof__(name) *name;
    WEBP_SYMBOLS(X)
#undef X
} W;
static int webp_loaded = 0;
static pthread_once_t webp_once = PTHREAD_ONCE_INIT;

static void webp_load(void) {
    static const char *const names[] = {"libwebp.so.7", NULL};
    static const char *const syms[] = {
#define X(name) #name,
        WEBP_SYMBOLS(X)
#undef X
    };
    webp_loaded = ifd__open(names, syms, (void **)&W, sizeof syms / sizeof syms[0]) == 0;
}

int ifd_webp_available(void) {
    pthread_once(&webp_once, webp_load);
    return webp_loaded;
}

/* libvips' VIPS_RINT: round half away from zero. */
static int vips_rint(double v) { return (int)(v > 0 ? v + 0.5 : v - 0.5); }

void ifd_webp_scaled_size(int source_w, int source_h, const ifd_box *box, int *width, int *height) {
    double factor = 1.0;
    if (box != NULL && box->width > 0 && box->height > 0 && source_w > 0 && source_h > 0) {
        /* thumbnail.c: vips_thumbnail_calculate_shrink, then the common shrink, at least 1. */
        double hshrink = (double)source_w / box->width;
        double vshrink = (double)source_h / box->height;
        int horizontal = box->crop ? hshrink < vshrink : !(hshrink < vshrink);
        if (horizontal) vshrink = hshrink; else hshrink = vshrink;
        if (!box->upscale) {
            hshrink = fmax(1, hshrink);
            vshrink = fmax(1, vshrink);
        }
        hshrink = fmin(hshrink, source_w);
        vshrink = fmin(vshrink, source_h);
        factor = fmax(1.0, fmin(hshrink, vshrink));
    }
    double scale = 1.0 / factor;   /* webp2vips.c: "scale", 1.0 / factor, then rint(canvas * scale) */
    *width = scale == 1.0 ? source_w : vips_rint(source_w * scale);
    *height = scale == 1.0 ? source_h : vips_rint(source_h * scale);
}

/* The VP8X chunk's flags (RIFF header, then "VP8X", its size and the flags byte), or -1 for a
 * simple (VP8/VP8L) file. */
static int vp8x_flags(const unsigned char *p, size_t len) {
    if (len < 21 || memcmp(p, "RIFF", 4) != 0 || memcmp(p + 8, "WEBP", 4) != 0) return -1;
    if (memcmp(p + 12, "VP8X", 4) != 0) return -1;
    return p[20];
}
/* 1 when the file's EXIF chunk (if any) says Orientation 1 or nothing; 0 when it rotates or is
 * malformed (libvips' thumbnail would rotate by it). */
static int exif_upright(const unsigned char *p, size_t len) {
    size_t riff = 8 + (size_t)(p[4] | p[5] << 8 | p[6] << 16 | (unsigned)p[7] << 24);
    size_t end = riff < len ? riff : len;
    for (size_t at = 12; at + 8 <= end;) {
        size_t size = p[at + 4] | p[at + 5] << 8 | p[at + 6] << 16 | (size_t)p[at + 7] << 24;
        if (size > end - at - 8) return 0;
        if (memcmp(p + at, "EXIF", 4) == 0) return ifd__exif_orientation(p + at + 8, size) == 1;
        at += 8 + size + (size & 1);
    }
    return 1;
}
enum { VP8X_ICC = 0x20, VP8X_ALPHA = 0x10, VP8X_EXIF = 0x08, VP8X_ANIMATION = 0x02 };

int ifd_webp_decode(const void *buf, size_t len, const ifd_box *box, double max_pixels, ifd_image *out) {
    if (out == NULL) return IFD_DECLINED;
    memset(out, 0, sizeof *out);
    const unsigned char *p = buf;
    if (p == NULL || len < 16 || memcmp(p, "RIFF", 4) != 0 || memcmp(p + 8, "WEBP", 4) != 0) return IFD_DECLINED;
    if (!ifd_webp_available()) return IFD_DECLINED;
    WebPBitstreamFeatures features;
    if (W.WebPGetFeaturesInternal(p, len, &features, WEBP_DECODER_ABI_VERSION) != VP8_STATUS_OK) return IFD_DECLINED;
    int flags = vp8x_flags(p, len);
    if (features.has_animation || (flags >= 0 && (flags & (VP8X_ICC | VP8X_ANIMATION)))) return IFD_DECLINED;
    if (flags >= 0 && (flags & VP8X_EXIF) && !exif_upright(p, len)) return IFD_DECLINED;
    /* libvips takes alpha from the VP8X flag (its demuxer's format flags), else from the bitstream. */
    int alpha = flags >= 0 ? (flags & VP8X_ALPHA) != 0 : features.has_alpha != 0;
    int sw = features.width, sh = features.height;
    if (!ifd__size_ok(sw, sh, max_pixels)) return IFD_DECLINED;
    int w = sw, h = sh;
    ifd_webp_scaled_size(sw, sh, box, &w, &h);
    if (w < 1 || h < 1) return IFD_DECLINED;

    int channels = alpha ? 4 : 3;
    unsigned char *pixels = ifd__alloc_pixels(w, h, channels, max_pixels);
    if (pixels == NULL) return IFD_DECLINED;
    WebPDecoderConfig config;
    if (!W.WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION)) {
        ifd_free(pixels);
        return IFD_DECLINED;
    }
    config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = w * channels;
    config.output.u.RGBA.size = (size_t)w * h * channels;
    if (w != sw || h != sh) {
        config.options.use_scaling = 1;
        config.options.scaled_width = w;
        config.options.scaled_height = h;
    }
    VP8StatusCode rc = W.WebPDecode(p, len, &config);
    W.WebPFreeDecBuffer(&config.output);   /* external memory: frees nothing of ours */
    if (rc != VP8_STATUS_OK) {
        ifd_free(pixels);
        return IFD_DECLINED;
    }
    out->pixels = pixels;
    out->width = w;
    out->height = h;
    out->channels = channels;
    out->source_width = sw;
    out->source_height = sh;
    return IFD_OK;
}
