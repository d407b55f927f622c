/* cjpeg.h: the JPEG path, libjpeg alone (no libvips): JPEG -> JPEG thumbnails, the validation of
 * JPEG originals, and the same thumbnail decoded while the bytes download.
 *
 * libjpeg is NOT linked: ifj_available() resolves libjpeg.so.62 with dlopen on first use.
 * Every function is safe to call from several threads at once.
 */
#ifndef CJPEG_H
#define CJPEG_H
#include <stddef.h>

/* ---- jpeg_fast.c: JPEG -> JPEG thumbnails with libjpeg alone (no libvips load) ---- */
enum { IFJ_OK = 0, IFJ_DECLINED = 1, IFJ_CORRUPT = 2 };

typedef struct {
    int width, height;       /* the box; a very large value means "unconstrained" */
    int crop;                /* 0 = fit inside, 1 = cover (fill the box, crop the centre) */
    int quality;             /* 1-100, 0 = 75 (libvips' default) */
    double max_pixels;       /* images with more pixels are declined (libvips reports the limit) */
    int pixels;              /* 1 = ifj_thumbnail gives the thumbnail's pixels (1 or 3 bytes each, rows
                                of `width`), not a JPEG: for placeholders and the other encoders */
    int small_side;          /* > 0: also the thumbnail's pixels box-filtered to fit inside side x side, as
                                RGBA (ifj_result.small): placeholders from the same pass */
    int square_resolution;   /* 1 = also decline a JPEG whose resolution is not known or differs between the
                                axes (ifj_result.x_ppm): a PNG's pHYs is written from x_ppm */
} ifj_opts;

typedef struct {
    void *data;              /* release with ifj_free */
    size_t length;
    int width, height;       /* of the thumbnail */
    int source_width, source_height;
    void *small;             /* opts->small_side: small_width x small_height x 4 bytes; release with ifj_free */
    int small_width, small_height;
    int x_ppm, y_ppm;        /* the resolution libvips' jpegload would give, in pixels per metre as its
                                pngsave writes them (EXIF's, else JFIF's, else 72 dpi); 0 when not known
                                (EXIF fields of a form libvips' reading was not checked for) */
} ifj_result;

/* 1 when libjpeg.so.62 could be loaded (dlopen, once). */
int ifj_available(void);
/* IFJ_OK with *res filled; IFJ_CORRUPT when libjpeg reported an error or a warning while decoding
 * (truncated or corrupt data: the image must fail, never come out grey); IFJ_DECLINED when the input
 * is not a plain baseline/progressive YCbCr/greyscale JPEG without ICC profile and with orientation
 * 1: the caller then uses libvips. */
int ifj_thumbnail(const void *buf, size_t len, const ifj_opts *opts, ifj_result *res);
void ifj_free(void *p);
/* Both count stray bytes between the markers before the first scan as no warning (the header's
 * one tolerance, jpeg_fast.c's ifj_error); the same warning in or after a scan is corruption.
 * IFJ_OK when libjpeg decodes the whole JPEG without a single warning (at 1/8 scale: every
 * coefficient is still read), with its stored dimensions; IFJ_CORRUPT when libjpeg reported an
 * error or warning (its first message in msg); IFJ_DECLINED when it is no JPEG, libjpeg is missing
 * or it has more than max_pixels: then libvips gives the verdict. Deterministic, unlike libvips
 * 8.14's threaded checks; corruption libjpeg itself cannot see (a valid but wrong Huffman code)
 * passes. */
int ifj_validate(const void *buf, size_t len, double max_pixels, int *width, int *height, char *msg, size_t msglen);

/* ---- jpeg_encode.c: 8-bit pixels -> JPEG, as libvips 8.14's jpegsave writes them ----
 * For the other decoders' thumbnails (PNG, WebP, GIF stills): jpeg_set_defaults, the quality's
 * tables (jpeg_set_quality(Q, TRUE)), 4:2:0 below Q 90 and 4:4:4 from it, baseline, Huffman tables
 * optimised when asked (-f auto's jpegsave), no marker at all, not even JFIF's APP0 (jpegsave's
 * strip). Alpha (2 or 4 channels, straight) is flattened onto `background` exactly as
 * vips_flatten does 8-bit pixels; grey with alpha onto a colour becomes RGB, as libvips converts
 * it to sRGB first. The same file as libvips' for the same pixels. */
typedef struct {
    int quality;             /* 1-100, 0 = 75 (jpegsave's Q default) */
    int optimize_coding;     /* 1 = optimised Huffman tables */
    unsigned char background[3];   /* the sRGB colour alpha is flattened onto */
} ifj_encode_opts;

/* pixels: width x height, channels 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA), rows `stride`
 * bytes apart. IFJ_OK with *out (release with ifj_free) and *out_len; IFJ_DECLINED when libjpeg
 * is missing, the size is out of JPEG's range or memory is short. opts may be NULL (Q 75, white). */
int ifj_encode(const void *pixels, int width, int height, int channels, size_t stride,
               const ifj_encode_opts *opts, void **out, size_t *out_len);

/* ---- jpeg_stream.c: the same thumbnail, decoded while the bytes arrive ----
 * A decoder thread starts with the first byte (if it is 0xFF, else the stream declines at once) and
 * reads pieces as ifj_stream_append delivers them, so decoding overlaps the download and only the
 * last piece, the resize and the encode remain when the transfer ends. */
typedef struct ifj_stream ifj_stream;

/* NULL when libjpeg cannot be loaded or memory is short. Release with ifj_stream_release.
 * The decode starts start_delay_ms after the first byte, and only if the body is still arriving:
 * a download that fast is left to the caller (the result declines), as overlapping it gains
 * nothing and costs a core and memory. 0 = decode from the first byte. */
ifj_stream *ifj_stream_new(const ifj_opts *opts, int start_delay_ms);
/* Producer side (one thread, any thread): the next piece of the body; then the end, exactly once,
 * with complete = 1 when every byte went through append. The `void *` signatures match ccurl's tap. */
void ifj_stream_append(void *stream, const void *data, size_t len);
void ifj_stream_end(void *stream, int complete);
/* Waits for the decoder; IFJ_OK with *res filled (as ifj_thumbnail would fill it for the same bytes)
 * only when the stream ended complete, `total_len` bytes were appended, and the decode succeeded.
 * Otherwise IFJ_DECLINED: use ifj_thumbnail or libvips on the whole body. Call at most once. */
int ifj_stream_result(ifj_stream *s, size_t total_len, ifj_result *res);
void ifj_stream_release(ifj_stream *s);

/* ---- jpeg_scans.c: where a progressive JPEG has enough scans for a thumbnail ----
 * Fed a body's bytes in order (any pieces), it follows the markers and scan headers (SOS: components,
 * Ss, Se, Ah, Al) and stops at the first scan boundary after which every component has its DC known
 * to Al <= 1 and every AC coefficient with max(u, v) <= floor(8 x thumbnail size / source size)
 * (at least 1) to Al <= 2, unless that scan is the last one. The bytes before the boundary plus an
 * EOI marker are then a JPEG of those scans. Bounded state, no allocation after new, no libjpeg;
 * anything but a well-formed SOF2 scan script (ITU T.81 G.1.1.1) gives up: read whole. One thread. */
typedef struct ifj_scans ifj_scans;
enum { IFJ_SCANS_WATCHING = 0, IFJ_SCANS_STOP = 1, IFJ_SCANS_WHOLE = 2 };

/* box_width x box_height: the thumbnail's box (fit inside, or cover when cover = 1; never upscaled).
 * NULL when memory is short. Release with ifj_scans_free. */
ifj_scans *ifj_scans_new(int box_width, int box_height, int cover);
void ifj_scans_free(ifj_scans *w);
/* Feeds the next piece; returns the status after it (IFJ_SCANS_*). Once STOP or WHOLE, pieces are
 * ignored. The `void *` signature matches ccurl's body watcher. */
int ifj_scans_feed(void *watcher, const void *data, size_t len);
int ifj_scans_status(const ifj_scans *w);
/* STOP: the offset of the marker after the last scan needed (the bytes to keep); else 0. */
unsigned long long ifj_scans_boundary(const ifj_scans *w);
/* Scan headers seen so far. */
int ifj_scans_count(const ifj_scans *w);

#endif
