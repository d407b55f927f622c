/* cdecoders.h: PNG, WebP and GIF sources decoded to 8-bit RGB or RGBA pixels without libvips, for
 * the own resize and encoders. Each decoder takes only what libvips 8.14 would turn into exactly
 * the same pixels; anything else it DECLINES, and libvips then decodes the bytes as before and
 * gives the verdict. A decoder never calls an image corrupt: a library error or warning it cannot
 * prove harmless declines too, so a file refused today is still refused (by libvips), with the same
 * message, and a file accepted today is never refused.
 *
 * libpng16.so.16, libwebp.so.7 and libgif.so.7 are NOT linked: each is resolved with dlopen on the
 * first decode of its format (a cache hit never loads them). Every function is safe to call from
 * several threads at once; a decoder keeps no state between calls.
 */
#ifndef CDECODERS_H
#define CDECODERS_H
#include <stddef.h>

enum { IFD_OK = 0, IFD_DECLINED = 1 };

typedef struct {
    unsigned char *pixels;   /* width x height x channels bytes, rows packed; release with ifd_free */
    int width, height;       /* of the pixels (a scaled WebP decode: the scaled size) */
    int channels;            /* 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA); alpha not premultiplied:
                                the bands libvips' loader gives */
    int source_width, source_height;   /* the image's stored size */
    int pixels_per_metre;    /* the resolution libvips' pngsave would write for this image
                                (rint(xres * 1000): a PNG's pHYs, else 72 dpi; 1000 for WebP and GIF) */
    int frames;              /* a GIF's frame count (libvips makes an animation of more than one when the
                                output format can hold one); 1 for PNG and WebP */
} ifd_image;

/* The thumbnail box, as libvips' thumbnail takes it (for WebP's scaled decode). */
typedef struct {
    int width, height;       /* a very large value means "unconstrained" */
    int crop;                /* 0 = fit inside, 1 = cover (fill the box) */
    int upscale;             /* 1 = the box may enlarge (vips' size=both), 0 = down only */
} ifd_box;

void ifd_free(void *p);

/* ---- png_decode.c: libpng16.so.16 ----
 * 8-bit grey, grey+alpha, RGB or RGBA (as libvips: palette to RGB, tRNS to alpha, 1-4 bit grey to
 * 8) out of any PNG of 8 bits or less, interlaced or not; gAMA, cHRM and sRGB ignored as libvips
 * ignores them. DECLINED: no PNG or no libpng, 16 bits per sample, an iCCP profile (libvips
 * converts it), an eXIf chunk (libvips rotates by it), a pHYs whose axes differ, more than
 * max_pixels (libvips reports the limit), or any libpng error or warning (chunk CRCs checked: a bad
 * one declines; zlib's Adler-32 not checked, as libvips 8.14 does not check it). */
int ifd_png_available(void);
int ifd_png_decode(const void *buf, size_t len, double max_pixels, ifd_image *out);

/* ---- webp_decode.c: libwebp.so.7 ----
 * A still lossy or lossless WebP, RGBA when it has alpha, else RGB, decoded by libwebp scaled
 * down by the factor libvips 8.14's thumbnail asks its WebP loader for (thumbnail.c: the common
 * shrink to the box, at least 1; webp2vips.c: rint(size / factor) per axis), so the rest of the
 * resize starts from the same pixels as today. box NULL: full size. DECLINED: no WebP or no
 * libwebp, an animation, an ICC profile, an EXIF orientation other than 1 (or EXIF it cannot read),
 * more than max_pixels, any decode error. */
int ifd_webp_available(void);
/* Whether libwebp decodes on a second thread (its use_threads, libvips' setting and the default:
 * a single image sooner) or on the caller's alone (0: a batch that already keeps every core busy,
 * where the thread libwebp starts per image only costs CPU). The same pixels and verdicts either
 * way. Process-wide; any thread, any time (an atomic): decodes under way keep the setting they read. */
void ifd_webp_set_threads(int threads);
int ifd_webp_decode(const void *buf, size_t len, const ifd_box *box, double max_pixels, ifd_image *out);
/* The factor itself (>= 1): the width and height the scaled decode gives for a source_w x source_h
 * WebP and this box. */
void ifd_webp_scaled_size(int source_w, int source_h, const ifd_box *box, int *width, int *height);

/* ---- gif_decode.c: libgif.so.7 (giflib 5.2) ----
 * The first frame of a GIF as libvips' loader (libnsgif) gives it: RGBA when any frame declares a
 * transparent colour, else RGB. DECLINED: no GIF or no giflib, a first frame that does not cover
 * the logical screen exactly, no colour table, more than max_pixels, any giflib error (a truncated
 * or corrupt file: libvips, more lenient, gives the verdict). */
int ifd_gif_available(void);
int ifd_gif_decode(const void *buf, size_t len, double max_pixels, ifd_image *out);

/* ---- decoders_thumbnail.c: decode, resize (the own Lanczos3, ccodecs.h), crop ----
 * The thumbnail libvips' vips_thumbnail makes of the same bytes for the same box (size=down), in
 * pixels for an encoder: the same dimensions (its shrink, its rounding, WebP's scaled load), the
 * same centre crop for cover. */
enum { IFD_NONE = 0, IFD_PNG = 1, IFD_WEBP = 2, IFD_GIF = 3 };

typedef struct {
    int width, height;       /* the box; a very large value means "unconstrained" */
    int crop;                /* 0 = fit inside, 1 = cover (fill the box, crop the centre) */
    double max_pixels;       /* images with more pixels are declined (libvips reports the limit) */
} ifd_opts;

typedef struct {
    unsigned char *pixels;   /* width x height x channels, rows packed; release with ifd_free */
    int width, height, channels;
    int source_width, source_height;
    int pixels_per_metre;    /* as ifd_image */
    int frames;              /* as ifd_image */
    int format;              /* IFD_PNG, IFD_WEBP or IFD_GIF: the source's */
} ifd_result;

/* The format the bytes' signature names (IFD_NONE for anything else). */
int ifd_sniff(const void *buf, size_t len);
/* IFD_OK with *res filled, or IFD_DECLINED (what the decoder declines, a box not positive, memory):
 * libvips then makes the thumbnail. */
int ifd_thumbnail(const void *buf, size_t len, const ifd_opts *opts, ifd_result *res);

#endif
