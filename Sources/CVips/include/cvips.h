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

#endif
