/* cvips.h: the libvips operations imgfetch needs, as plain (non-variadic) C functions.
 *
 * libvips is NOT linked: ifv_load() resolves it with dlopen("libvips.so.42") on first use and
 * calls vips_init once (thread-safe), so a cache hit never pays for loading it.
 * Every function here is safe to call from several threads at once once ifv_load succeeded.
 * The vips error buffer is global: on failure each function copies it into err and clears it.
 */
#ifndef CVIPS_H
#define CVIPS_H
#include <stddef.h>

/* dlopen libvips (lazy binding), vips_init, block untrusted loaders, operation cache off, g_log warnings silenced. */
int ifv_load(char *err, size_t errlen);
/* Call while the process is single-threaded (it may setenv), before ifv_load: unless the user set
 * $VIPSHOME, vips_init then loads no module from any directory, and the image-format modules (heif:
 * AVIF/HEIC, jxl) are opened by absolute path from the system's module directory beside libvips, each
 * by the first call whose source (its first bytes) or saver needs it (vips_modules.c).
 * ImageMagick, poppler and openslide stay unloaded (their loading costs every process). */
void ifv_restrict_modules(void);

/* libvips' version ("8.14.1") into `version`, for `imgfetch --version`. Loads libvips (ifv_load);
 * -1 (with err) when it cannot. Formats: ifv_can_save. */
int ifv_version(char *version, size_t len, char *err, size_t errlen);
/* Threads per image pipeline (1 = one thread per image), unless $VIPS_CONCURRENCY is set: applied
 * now if libvips is loaded, else when it loads (it never loads it). Call before images are processed. */
void ifv_set_concurrency(int n);

typedef struct {
    int width, height, bands;
    int has_alpha;
    int pages;                 /* n-pages metadata, 1 when absent */
    int has_profile;           /* an embedded ICC profile (icc-profile-data) that can be used */
    char profile_problem[128]; /* non-empty: the embedded profile cannot be used (why), and counts as none */
    char loader[64];           /* e.g. "jpegload_buffer" */
} ifv_header;

/* Header only (sequential access, no pixel decode): < 1 ms even for a pixel bomb. */
int ifv_read_header(const void *buf, size_t len, ifv_header *out, char *err, size_t errlen);

/* Fully decode (fail_on=error: an error or truncation fails, a warning does not) without writing, to prove the bytes are a whole image. */
int ifv_validate(const void *buf, size_t len, char *err, size_t errlen);

typedef struct {
    int width;                 /* target box; a very large value means "unconstrained" */
    int height;
    int crop;                  /* 0 = fit inside; cover (fill the box) keeping a VipsInteresting:
                                * 1 = the centre, 2 = entropy, 3 = attention */
    const char *save_suffix;   /* ".jpg", ".png", ".webp", ".avif", ".gif" */
    int quality;               /* 1-100 for lossy savers, 0 = saver default */
    int linear;                /* 1 = resize in linear light (vipsthumbnail --linear) */
    int all_pages;             /* 1 = every page/frame (an animation to an animated format), 0 = the first */
    int flatten;               /* 1 = the saver keeps no alpha: flatten onto `background` */
    double background[3];      /* sRGB, 0-255 */
    int sharpen;               /* 1 = vips_sharpen (sigma 1, its other defaults) after the resize */
    int upscale;               /* 1 = a box larger than the source enlarges it (size=both) */
    int keep_exif;             /* 1 = keep the EXIF blob with only its Copyright and Artist fields */
    int keep_icc;              /* 1 = keep the source's ICC profile (no sRGB conversion; CMYK is still converted) */
    double max_pixels;         /* > 0: with crop and upscale, a cover-scaled source over this many pixels is
                                * cropped first, then scaled (vips_cropfirst.c); 0 = vips_thumbnail alone */
    struct ifv_thumb_extras *extras;  /* vips_outputs.c: -f auto and placeholder pixels; NULL = none */
} ifv_thumb_opts;

/* ---- vips_outputs.c: more than one output of one thumbnail, decoded once into memory ---- */
typedef struct ifv_thumb_extras {
    /* In. candidates: savers' suffixes (".webp", ".jpg", ...) tried on the same pixels, the smallest
     * output kept (instead of opts->save_suffix); candidate_alpha[i] = 1 when that saver keeps alpha (2: and is
     * tried only for a picture with transparency).
     * A picture with transparency (an alpha band below 255 somewhere) is never given to a saver
     * without alpha (fails when no candidate keeps it); an alpha band that is opaque everywhere is
     * dropped first. n_candidates 0 = opts->save_suffix alone. */
    const char *const *candidates;
    const int *candidate_alpha;
    int n_candidates;
    int pixels_side;           /* > 0: also the thumbnail's sRGB RGBA pixels, fitted inside side x side */
    /* Out. */
    int chosen;                /* the index of the candidate written */
    void *pixels;              /* width x height x 4 bytes, release with ifv_free */
    int pixels_width, pixels_height;
} ifv_thumb_extras;

/* The sRGB RGBA pixels of an encoded image (first frame, orientation applied), fitted inside
 * side x side: a shrink-on-load thumbnail, for placeholders. *out released with ifv_free. */
int ifv_rgba_pixels(const void *buf, size_t len, int side, void **out, int *out_w, int *out_h, char *err, size_t errlen);

/* 8-bit pixels made without libvips (width x height, bands 1 = grey or 3 = sRGB, rows width x bands
 * bytes apart) encoded by the saver of `suffix` (".avif", ...) as ifv_thumbnail encodes its
 * thumbnail (quality 0 = the saver's default, metadata stripped). 0 with *out (release with
 * ifv_free), or -1 with err. Loads libvips. */
int ifv_save_pixels(const void *pixels, int width, int height, int bands, const char *suffix, int quality,
                    void **out, size_t *out_len, char *err, size_t errlen);

/* vips_thumbnail as vipsthumbnail runs it (shrink-on-load leaving the filter at least 2x, never
 * upscaling, orientation applied); a source carrying an ICC profile is converted to sRGB (an
 * untagged one is left alone: libvips 8.14 shifts it otherwise), alpha flattened when asked, every
 * metadata field but the animation's removed (savers differ in what `strip` removes), then encoded.
 * On success *out is a buffer to release with ifv_free, and *out_w / *out_h the encoded
 * dimensions (*out_h of one frame). Truncated input fails. */
int ifv_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts,
                  void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen);
void ifv_free(void *p);
/* Call before libvips loads (before any other ifv_ call but ifv_restrict_modules): ifv_load then
 * unblocks libvips' JXL loaders (VipsForeignLoadJxl*, untrusted in 8.14) once the jxl module is
 * loaded; jxlsave stays blocked, so JXL is input only. */
void ifv_allow_jxl(void);
/* 1 when this libvips build has a JXL loader (which ifv_allow_jxl unblocks). Loads libvips. */
int ifv_can_load_jxl(void);
/* 1 when this libvips build has a buffer saver for the suffix (".avif" may be missing). */
int ifv_can_save(const char *suffix);

/* ---- vips_sheet.c: a contact sheet of thumbnails (vips arrayjoin, labels by vips text) ---- */
typedef struct {
    const void *data;          /* an image file's bytes (any format libvips loads); len 0 = a blank box */
    size_t len;
    const char *label_markup;  /* Pango markup (escape & < >), rendered under the picture; may be NULL */
} ifv_sheet_item;

typedef struct {
    int columns;               /* cells across (fewer when there are fewer items) */
    int size;                  /* the picture box, size x size; pictures are never upscaled */
    int label_height;          /* pixels of text under each picture */
    int pad;                   /* white around each cell's picture */
    int dpi;                   /* text resolution (72: a 10-point font is ~10 pixels) */
    const char *save_suffix;   /* ".jpg", ".png", ".webp" */
    int quality;               /* lossy savers, 0 = 85 */
} ifv_sheet_opts;

/* Every cell is (size + 2 pad) wide and (size + 2 pad + label_height + pad) high, so the sheet is
 * columns x rows cells exactly. On success *out is released with ifv_free. */
int ifv_contact_sheet(const ifv_sheet_item *items, int n, const ifv_sheet_opts *opts,
                      void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen);

#endif
