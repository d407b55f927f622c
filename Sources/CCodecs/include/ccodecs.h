/* ccodecs.h: 8-bit pixels between a decoder and an encoder without libvips: the Lanczos3 resizer
 * (the JPEG path's, jpeg_fast.c) and the WebP and PNG encoders, set as libvips 8.14's webpsave and
 * pngsave are for the same options, so a thumbnail's file is the one libvips would write from the
 * same pixels.
 *
 * libwebp (libwebp.so.7) and libpng (libpng16.so.16) are NOT linked: each is resolved with dlopen
 * on its encoder's first use (ifc_webp_available, ifc_png_available), so a path that never encodes
 * one never loads it.
 *
 * Threading: every function is safe to call from several threads at once; a resizer or a pixel
 * buffer belongs to one thread at a time (the caller's). Nothing here keeps a pointer it was given
 * after it returns.
 * Ownership: what a function allocates (a resizer, pixels, encoded bytes) the caller releases, with
 * the function named beside it; NULL may be released.
 */
#ifndef CCODECS_H
#define CCODECS_H
#include <stddef.h>

/* ---- pixels ---- */
/* An 8-bit interleaved image: channels 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA); alpha is
 * straight (not premultiplied). Row y starts at data + y * stride (stride >= width * channels). */
typedef struct {
    unsigned char *data;
    int width, height, channels;
    size_t stride;
} ifc_pixels;

/* ---- codecs_resize.c: separable Lanczos3 (libvips' reduce kernel), downsizing only ----
 * Row by row, for a decoder that produces rows in order: the output rows are made as soon as
 * their last input row arrives, so when the last row is decoded only the last output rows remain.
 * 1 and 3 channels give the JPEG path's bytes exactly. With alpha (2 or 4 channels), the colour is
 * premultiplied by alpha before the filter and divided by the filtered alpha after it (libvips'
 * thumbnail does the same): a transparent pixel's colour leaks into no edge (no dark fringes); a
 * pixel whose alpha comes out 0 is 0 everywhere. */
typedef struct ifc_resizer ifc_resizer;
/* sw x sh -> dw x dh (dw <= sw, dh <= sh, all >= 1), channels 1-4. NULL when memory is short or the
 * sizes are out of range. */
ifc_resizer *ifc_resizer_new(int sw, int sh, int channels, int dw, int dh);
/* Input row y (0, 1, 2, ... in order, each exactly once): sw * channels bytes. */
void ifc_resizer_row(ifc_resizer *r, int y, const unsigned char *row);
/* The dw x dh result (rows dw * channels bytes apart), complete after the last input row; owned
 * by the resizer. */
const unsigned char *ifc_resizer_pixels(const ifc_resizer *r);
void ifc_resizer_free(ifc_resizer *r);

/* The whole of `in` resized to dw x dh into *out (its data malloc'ed, stride dw * channels:
 * release with ifc_free(out->data)). 0, or -1 when memory is short or the sizes are out of range
 * (dw > in->width, dh > in->height, a size below 1, channels outside 1-4). */
int ifc_resize(const ifc_pixels *in, int dw, int dh, ifc_pixels *out);

/* ---- codecs_webp.c: WebP, as libvips 8.14's webpsave writes a single picture ----
 * Lossy, WebPConfigPreset(WEBP_PRESET_DEFAULT, quality), alpha_quality 100, no smart subsampling,
 * no metadata chunks (webpsave's strip), RGB or RGBA imported as given (grey is expanded to RGB,
 * grey+alpha to RGBA), always in the extended format (a VP8X chunk, as webpsave's mux writes it):
 * the same file as libvips' for the same pixels. */
typedef struct {
    int quality;             /* 1-100, 0 = 75 (webpsave's Q default) */
    int method;              /* libwebp's method 0-6, -1 = 4 (webpsave's effort default) */
} ifc_webp_opts;

/* ---- codecs_png.c: PNG, as libvips 8.14's pngsave writes one ----
 * 8 bits a sample, the colour type of the channels (grey, grey+alpha, RGB, RGBA), not interlaced,
 * zlib level 6, no row filter (pngsave's defaults), no ancillary chunk but pHYs (pngsave's strip
 * keeps the resolution). */
typedef struct {
    int compression;         /* zlib level 0-9, -1 = 6 */
    int pixels_per_metre;    /* the pHYs chunk (both axes; libvips writes rint(xres * 1000), 1000 for
                                an image without a resolution); 0 = no pHYs chunk */
} ifc_png_opts;

typedef struct {
    void *data;              /* malloc'ed: release with ifc_free */
    size_t length;
} ifc_bytes;

enum { IFC_OK = 0, IFC_UNAVAILABLE = 1, IFC_FAILED = 2 };

/* 1 when the library could be loaded (dlopen, once; later calls only read the outcome). */
int ifc_webp_available(void);
int ifc_png_available(void);
/* IFC_OK with *out filled; IFC_UNAVAILABLE when the library is missing; IFC_FAILED when the pixels
 * are out of range (size, channels) or the encoder failed (memory): msg then says why (NUL-ended,
 * at most msglen bytes; msg may be NULL). opts may be NULL (the defaults). */
int ifc_encode_webp(const ifc_pixels *pixels, const ifc_webp_opts *opts, ifc_bytes *out, char *msg, size_t msglen);
int ifc_encode_png(const ifc_pixels *pixels, const ifc_png_opts *opts, ifc_bytes *out, char *msg, size_t msglen);

void ifc_free(void *p);

#endif
