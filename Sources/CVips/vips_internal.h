/* vips_internal.h: shared between the files of the libvips shim (not part of the module's API). */
#ifndef VIPS_INTERNAL_H
#define VIPS_INTERNAL_H

#include <stddef.h>

#include "cvips.h"

/* In a `*_resolve(void *handle, char *err, size_t errlen)` function: `ptr` = dlsym(handle, name),
 * or a message naming the symbol in err and return -1 (the caller includes dlfcn.h and stdio.h). */
#define IFV_RESOLVE(ptr, name)                                                      \
    do {                                                                            \
        *(void **)(&ptr) = dlsym(handle, name);                                     \
        if (ptr == NULL) {                                                          \
            snprintf(err, errlen, "libvips: missing symbol %s", name);             \
            return -1;                                                              \
        }                                                                           \
    } while (0)

/* vips_modules.c: the modules libvips' heif (HEIF, AVIF) and jxl loaders and savers live in, opened
 * only when a call needs one. ifv__modules_locate (inside ifv_load, after vips_init): when
 * ifv_restrict_modules took effect, the module directory of the libvips containing `vips_symbol`
 * (version major.minor). ifv__modules_for_bytes / _for_suffix: the modules a source (by its first
 * bytes) or a save suffix needs; ifv__modules_missing: those of `mask` not opened yet (0 when libvips
 * loads its modules itself). ifv__modules_open: opens the missing ones (1 when it tried any); call it
 * through ifv__need_modules, which holds the lock no operation runs under. */
enum { IFV_MODULE_HEIF = 1, IFV_MODULE_JXL = 2 };
void ifv__modules_locate(void *vips_symbol, int major, int minor);
int ifv__modules_for_bytes(const void *buf, size_t len);
int ifv__modules_for_suffix(const char *suffix);
int ifv__modules_missing(int mask);
int ifv__modules_open(int mask);
/* vips_errors.c: loads libvips and opens the modules of `mask` not opened yet, with the operations'
 * lock held exclusively (no operation runs while a module registers its classes), then blocks the
 * untrusted operations again (ifv__block_untrusted). Cheap once they are open. */
void ifv__need_modules(int mask);
/* vips_shim.c: blocks libvips' untrusted operations (those of modules opened since included), then
 * applies the JXL permission (ifv__apply_jxl_permission). libvips must be loaded. */
void ifv__block_untrusted(void);

/* Called inside ifv_load after untrusted operations are blocked: unblocks the JXL loaders when
 * ifv_allow_jxl was called. */
void ifv__apply_jxl_permission(void);

/* The operations of vips_shim.c, run once; vips_errors.c wraps them as the public ifv_* entry
 * points, so that each failure reports its own message (libvips' error buffer is process-wide). */
int ifv__read_header_once(const void *buf, size_t len, ifv_header *out, char *err, size_t errlen);
int ifv__validate_once(const void *buf, size_t len, char *err, size_t errlen);
int ifv__thumbnail_once(const void *buf, size_t len, const ifv_thumb_opts *opts,
                        void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen);
int ifv__can_save_once(const char *suffix);
/* vips_finish.c: resolves its own libvips functions from the dlopen handle (0, or -1 with a
 * message in err), then finishes a thumbnail before it is saved: flattens it (opts->flatten) and
 * removes its metadata. Replaces *img (unreferencing the old one); -1 on failure, *img untouched. */
typedef struct _VipsImage VipsImage;
int ifv__finish_resolve(void *handle, char *err, size_t errlen);
int ifv__finish(VipsImage **img, const ifv_thumb_opts *opts);
/* 1 when the image carries an ICC profile. */
int ifv__has_profile(VipsImage *img);
/* vips_profile.c: resolves its functions (0, or -1 with a message in err); 1 when the image carries
 * an ICC profile that cannot be used (does not parse, lcms cannot open it, or it needs more channels
 * than the image has: it then counts as no profile), with why in `why`; else 0. */
int ifv__profile_resolve(void *handle, char *err, size_t errlen);
int ifv__profile_unusable(VipsImage *img, char *why, size_t whylen);
/* 1 when the image is CMYK. */
int ifv__is_cmyk(VipsImage *img);

/* vips_cropfirst.c: resolves its functions (0, or -1 with a message in err). ifv__cover_intermediate:
 * the pixels cover with upscale would scale the source `hdr` to before cropping (*pixels; 0 when
 * opts do not ask for it, or for every page), and 1 when they are over opts->max_pixels. Then
 * ifv__cropfirst_thumbnail makes the thumbnail from the region cover keeps, cut out of the source
 * before it is scaled: *out as vips_thumbnail_buffer would give it, before ifv__finish; -1 on failure. */
int ifv__cropfirst_resolve(void *handle, char *err, size_t errlen);
int ifv__cover_intermediate(VipsImage *hdr, const ifv_thumb_opts *opts, double *pixels);
int ifv__cropfirst_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts, const char *load_opts,
                             int convert, VipsImage **out);

/* vips_outputs.c: resolves its libvips functions (0, or -1 with a message in err); saves a finished
 * thumbnail: with opts->extras NULL, with `suffix` as it is (lazily, one pass); else decoded once into
 * memory, then the extras (ifv_thumb_extras). On success *out is a vips buffer. */
int ifv__outputs_resolve(void *handle, char *err, size_t errlen);
int ifv__save(VipsImage *thumb, const ifv_thumb_opts *opts, const char *suffix, void **out, size_t *out_len);
int ifv__rgba_pixels_once(const void *buf, size_t len, int side, void **out, int *out_w, int *out_h, char *err, size_t errlen);
int ifv__save_pixels_once(const void *pixels, int width, int height, int bands, const char *suffix, int quality,
                          void **out, size_t *out_len, char *err, size_t errlen);
/* vips_common.c, which every file may use and which uses none of them (no file circle): */
/* its libvips functions (0, or -1 with a message in err), resolved by the loader; then, once
 * libvips is ready, ifv__common_loaded. */
int ifv__common_resolve(void *handle, char *err, size_t errlen);
void ifv__common_loaded(void);
/* msg (or "") into err, when err has room. */
void ifv__copy_msg(char *err, size_t errlen, const char *msg);
/* The vips error buffer into err (a fallback when it is empty), then cleared. */
void ifv__take_error(char *err, size_t errlen, const char *fallback);
/* vips_error_clear, when libvips is loaded. */
void ifv__error_clear(void);
/* Whether `suffix` is `a`, ignoring case. */
int ifv__suffix_is(const char *suffix, const char *a);
/* The save suffix for a saver and quality (".jpg" -> ".jpg[Q=80,strip]"). */
int ifv__suffix(const char *suffix, int quality, int strip, char *dst, size_t dstlen);

/* vips_animated.c: resolves its functions (0, or -1 with a message in err). ifv__animated_thumbnail: an
 * animated GIF fitted inside the box with its frames resized by CCodecs into *out (page-height, delay,
 * loop set), 0; 1 = declined (not a GIF, cover crop, linear, `convert`, no downsizing, too large: use
 * vips_thumbnail); -1 = failed (libvips' error set). */
int ifv__animated_resolve(void *handle, char *err, size_t errlen);
int ifv__animated_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts, const char *load_opts,
                            int convert, VipsImage **out);

#endif
