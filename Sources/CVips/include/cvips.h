/* cvips.h: the libvips operations imgfetch needs, as plain (non-variadic) C functions.
 *
 * libvips is NOT linked: ifv_load() resolves it with dlopen("libvips.so.42") on first use and
 * calls vips_init once (thread-safe), so a cache hit never pays its ~45 ms of loading.
 * Every function here is safe to call from several threads at once once ifv_load succeeded.
 * The vips error buffer is global: on failure each function copies it into err and clears it.
 */
#ifndef CVIPS_H
#define CVIPS_H
#include <stddef.h>

/* dlopen libvips, vips_init, block untrusted loaders, operation cache off, g_log warnings silenced. */
int ifv_load(char *err, size_t errlen);
/* Before ifv_load: ifv_load links only the image-format modules (heif: AVIF/HEIC, jxl) from the
 * real module directory into home/<libdir>/vips-modules-M.m (unless $VIPSHOME names another
 * directory). With $VIPSHOME == home, vips_init then skips ImageMagick, poppler and openslide
 * (~15 ms and ~5 MB per process). */
void ifv_set_module_home(const char *home);
/* Threads per image pipeline (1 = one thread per image), unless $VIPS_CONCURRENCY is set: applied
 * now if libvips is loaded, else when it loads (it never loads it). Call before images are processed. */
void ifv_set_concurrency(int n);

typedef struct {
    int width, height, bands;
    int has_alpha;
    int pages;                 /* n-pages metadata, 1 when absent */
    int has_profile;           /* an embedded ICC profile (icc-profile-data) */
    char loader[64];           /* e.g. "jpegload_buffer" */
} ifv_header;

/* Header only (sequential access, no pixel decode): < 1 ms even for a pixel bomb. */
int ifv_read_header(const void *buf, size_t len, ifv_header *out, char *err, size_t errlen);

/* Fully decode (fail_on=truncated) without writing, to prove the bytes are a whole image. */
int ifv_validate(const void *buf, size_t len, char *err, size_t errlen);

typedef struct {
    int width;                 /* target box; a very large value means "unconstrained" */
    int height;
    int crop;                  /* 0 = fit inside, 1 = cover (fill the box, crop centre) */
    const char *save_suffix;   /* ".jpg", ".png", ".webp", ".avif", ".gif" */
    int quality;               /* 1-100 for lossy savers, 0 = saver default */
    int linear;                /* 1 = resize in linear light (vipsthumbnail --linear) */
    int all_pages;             /* 1 = every page/frame (an animation to an animated format), 0 = the first */
    int flatten;               /* 1 = the saver keeps no alpha: flatten onto `background` */
    double background[3];      /* sRGB, 0-255 */
} ifv_thumb_opts;

/* vips_thumbnail as vipsthumbnail runs it (shrink-on-load leaving the filter at least 2x, never
 * upscaling, orientation applied); a source carrying an ICC profile is converted to sRGB (an
 * untagged one is left alone: libvips 8.14 shifts it otherwise), alpha flattened when asked, every
 * metadata field but the animation's removed (savers differ in what `strip` removes), then encoded.
 * On success *out is a buffer to release with ifv_free, and *out_w / *out_h the encoded
 * dimensions (*out_h of one frame). Truncated input fails. */
int ifv_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts,
                  void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen);
void ifv_free(void *p);
/* 1 when this libvips build has a buffer saver for the suffix (".avif" may be missing). */
int ifv_can_save(const char *suffix);

/* ---- jpeg_fast.c: JPEG -> JPEG thumbnails with libjpeg alone (no libvips load) ---- */
enum { IFJ_OK = 0, IFJ_DECLINED = 1 };

typedef struct {
    int width, height;       /* the box; a very large value means "unconstrained" */
    int crop;                /* 0 = fit inside, 1 = cover (fill the box, crop the centre) */
    int quality;             /* 1-100, 0 = 75 (libvips' default) */
    double max_pixels;       /* images with more pixels are declined (libvips reports the limit) */
} ifj_opts;

typedef struct {
    void *data;              /* release with ifj_free */
    size_t length;
    int width, height;       /* of the thumbnail */
    int source_width, source_height;
} ifj_result;

/* 1 when libjpeg.so.62 could be loaded (dlopen, once). */
int ifj_available(void);
/* IFJ_OK with *res filled, or IFJ_DECLINED when the input is not a plain baseline/progressive
 * YCbCr/greyscale JPEG without ICC profile and with orientation 1, or libjpeg reported anything
 * (a truncated file included): the caller then uses libvips, which gives the verdict. */
int ifj_thumbnail(const void *buf, size_t len, const ifj_opts *opts, ifj_result *res);
void ifj_free(void *p);
/* IFJ_OK when libjpeg decodes the whole JPEG without a single warning (at 1/8 scale: every
 * coefficient is still read), with its stored dimensions; IFJ_DECLINED otherwise, including more
 * than max_pixels: then libvips gives the verdict. For handing out original bytes. This is
 * stricter than libvips' fail_on=truncated (which lets other warnings pass); corruption that
 * libjpeg itself cannot see (a valid but wrong Huffman code) passes both. */
int ifj_validate(const void *buf, size_t len, double max_pixels, int *width, int *height);

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

#endif
