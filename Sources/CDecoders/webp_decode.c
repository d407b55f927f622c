/* webp_decode.c: still WebP -> 8-bit RGB/RGBA with libwebp alone, scaled on decode to the size
 * libvips 8.14's thumbnail loads (see cdecoders.h). */
#include "decoders_internal.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#define WEBP_SYMBOLS(X) X(WebPInitDecoderConfigInternal) X(WebPDecode) X(WebPFreeDecBuffer)
#define DEMUX_SYMBOLS(X) \
    X(WebPDemuxInternal) X(WebPDemuxDelete) X(WebPDemuxGetI) X(WebPDemuxGetFrame) X(WebPDemuxReleaseIterator) \
    X(WebPDemuxGetChunk) X(WebPDemuxReleaseChunkIterator)

static struct {
#define X(name) __typeof__(name) *name;
    WEBP_SYMBOLS(X)
#undef X
} W;
static struct {
#define X(name) __typeof__(name) *name;
    DEMUX_SYMBOLS(X)
#undef X
} D;
static int webp_loaded = 0;
static _Atomic int webp_threads = 1;

void ifd_webp_set_threads(int threads) { webp_threads = threads != 0; }
static pthread_once_t webp_once = PTHREAD_ONCE_INIT;

static void webp_load(void) {
    static const char *const names[] = {"libwebp.so.7", NULL};
    static const char *const syms[] = {
#define X(name) #name,
        WEBP_SYMBOLS(X)
#undef X
    };
    static const char *const demux_names[] = {"libwebpdemux.so.2", NULL};
    static const char *const demux_syms[] = {
#define X(name) #name,
        DEMUX_SYMBOLS(X)
#undef X
    };
    webp_loaded = ifd__open(names, syms, (void **)&W, sizeof syms / sizeof syms[0]) == 0 &&
                  ifd__open(demux_names, demux_syms, (void **)&D, sizeof demux_syms / sizeof demux_syms[0]) == 0;
}

int ifd_webp_available(void) {
    pthread_once(&webp_once, webp_load);
    return webp_loaded;
}

/* libvips' VIPS_RINT: rint(), halves to even (300 x 51/200 = 76.5 loads 76 wide). */
static int vips_rint(double v) { return (int)rint(v); }

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

enum { VP8X_ICC = 0x20, VP8X_ALPHA = 0x10, VP8X_EXIF = 0x08, VP8X_ANIMATION = 0x02 };

/* As webp2vips.c reads a still: the demuxer (it refuses what libvips refuses to parse), its flags
 * for alpha, the canvas size, and the first frame's own bytes decoded (not the whole file: a damaged
 * stream that would read on into the chunks after it fails there, as it fails in libvips). */
int ifd_webp_decode(const void *buf, size_t len, const ifd_box *box, double max_pixels, ifd_image *out) {
    if (out == NULL) return IFD_DECLINED;
    memset(out, 0, sizeof *out);
    const unsigned char *p = buf;
    if (p == NULL || len < 16 || memcmp(p, "RIFF", 4) != 0 || memcmp(p + 8, "WEBP", 4) != 0) return IFD_DECLINED;
    if (!ifd_webp_available()) return IFD_DECLINED;
    WebPData data = {p, len};
    WebPDemuxer *demux = D.WebPDemuxInternal(&data, 0, NULL, WEBP_DEMUX_ABI_VERSION);
    if (demux == NULL) return IFD_DECLINED;
    int status = IFD_DECLINED;
    unsigned char *pixels = NULL;
    WebPIterator frame;
    int have_frame = 0;
    uint32_t flags = D.WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS);
    int sw = (int)D.WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH), sh = (int)D.WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    if (flags & (VP8X_ICC | VP8X_ANIMATION) || D.WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT) != 1) goto done;
    if (flags & VP8X_EXIF) {
        /* libvips' thumbnail rotates by the EXIF orientation: only an upright one stays here. */
        WebPChunkIterator exif;
        int upright = 0;
        if (D.WebPDemuxGetChunk(demux, "EXIF", 1, &exif)) {
            upright = ifd__exif_orientation(exif.chunk.bytes, exif.chunk.size) == 1;
            D.WebPDemuxReleaseChunkIterator(&exif);
        }
        if (!upright) goto done;
    }
    int alpha = (flags & VP8X_ALPHA) != 0;
    if (!ifd__size_ok(sw, sh, max_pixels)) goto done;
    if (!D.WebPDemuxGetFrame(demux, 1, &frame)) goto done;
    have_frame = 1;
    if (frame.width != sw || frame.height != sh || frame.x_offset != 0 || frame.y_offset != 0) goto done;
    int w = sw, h = sh;
    ifd_webp_scaled_size(sw, sh, box, &w, &h);
    if (w < 1 || h < 1) goto done;

    int channels = alpha ? 4 : 3;
    pixels = ifd__alloc_pixels(w, h, channels, max_pixels);
    WebPDecoderConfig config;
    if (pixels == NULL || !W.WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION)) goto done;
    /* libvips decodes with threads (the default here): the same pixels and verdict on damaged data
     * with or without them (libwebp's filtering thread only runs the rows' loop filter). */
    config.options.use_threads = webp_threads;
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
    VP8StatusCode rc = W.WebPDecode(frame.fragment.bytes, frame.fragment.size, &config);
    W.WebPFreeDecBuffer(&config.output);   /* external memory: frees nothing of ours */
    if (rc != VP8_STATUS_OK) goto done;
    out->pixels = pixels;
    pixels = NULL;
    out->width = w;
    out->height = h;
    out->channels = channels;
    out->source_width = sw;
    out->source_height = sh;
    out->pixels_per_metre = 1000;   /* webpload's 1 pixel per mm */
    out->frames = 1;
    status = IFD_OK;
done:
    ifd_free(pixels);
    if (have_frame) D.WebPDemuxReleaseIterator(&frame);
    D.WebPDemuxDelete(demux);
    return status;
}
