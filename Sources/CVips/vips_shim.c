/* vips_shim.c: libvips resolved at run time with dlopen, behind the plain C API of cvips.h.
 *
 * libvips is deliberately not linked (linking it costs process start-up time, which a cache
 * hit must not pay) and its headers are not included (they need glib's include paths). The few
 * types and functions used are declared here by hand; values checked against vips 8.14 headers.
 * Several of the vips entry points are C-variadic; calling them through a variadic function
 * pointer is fine in C (which is why this shim exists: Swift cannot call them).
 */
#define _GNU_SOURCE
#include "cvips.h"
#include "vips_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opaque vips / glib types and the enum values we pass ------------------------------------ */

typedef int gboolean;
typedef unsigned long GType;              /* gsize on LP64 */

enum { IFV_VIPS_ACCESS_RANDOM = 0, IFV_VIPS_ACCESS_SEQUENTIAL = 1 };
enum { IFV_VIPS_SIZE_BOTH = 0, IFV_VIPS_SIZE_UP = 1, IFV_VIPS_SIZE_DOWN = 2, IFV_VIPS_SIZE_FORCE = 3 };
enum { IFV_VIPS_INTERESTING_NONE = 0, IFV_VIPS_INTERESTING_CENTRE = 1, IFV_VIPS_INTERESTING_ATTENTION = 3 };

/* GLogLevelFlags (gmessages.h) */
enum {
    IFV_G_LOG_FLAG_RECURSION = 1 << 0,
    IFV_G_LOG_FLAG_FATAL = 1 << 1,
    IFV_G_LOG_LEVEL_WARNING = 1 << 4,
    IFV_G_LOG_LEVEL_MESSAGE = 1 << 5,
    IFV_G_LOG_LEVEL_INFO = 1 << 6,
    IFV_G_LOG_LEVEL_DEBUG = 1 << 7,
};
typedef void (*GLogFunc)(const char *domain, int level, const char *message, void *user_data);

/* ---- function pointers ------------------------------------------------------------------------ */

static int (*p_vips_init)(const char *argv0);
static int (*p_vips_thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
static int (*p_vips_thumbnail_image)(VipsImage *in, VipsImage **out, int width, ...);
static VipsImage *(*p_vips_image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
static int (*p_vips_image_write_to_buffer)(VipsImage *in, const char *suffix, void **buf, size_t *size, ...);
static int (*p_vips_image_get_width)(const VipsImage *image);
static int (*p_vips_image_get_height)(const VipsImage *image);
static int (*p_vips_image_get_page_height)(VipsImage *image);
static int (*p_vips_image_get_bands)(const VipsImage *image);
static gboolean (*p_vips_image_hasalpha)(VipsImage *image);
static int (*p_vips_image_get_n_pages)(VipsImage *image);
static const char *(*p_vips_foreign_find_load_buffer)(const void *data, size_t size);
static const char *(*p_vips_foreign_find_save_buffer)(const char *suffix);
static const char *(*p_vips_nickname_find)(GType type);
static char *(*p_vips_error_buffer_copy)(void);
static void (*p_vips_error_clear)(void);
static void (*p_vips_block_untrusted_set)(gboolean state);
static void (*p_vips_cache_set_max)(int max);
static void (*p_vips_concurrency_set)(int concurrency);
static int (*p_vips_avg)(VipsImage *in, double *out, ...);
static void (*p_g_object_unref)(void *object);
static void (*p_g_free)(void *mem);
static GType (*p_g_type_from_name)(const char *name);
static unsigned (*p_g_log_set_handler)(const char *domain, int levels, GLogFunc func, void *user_data);

/* ---- loading ------------------------------------------------------------------------------------ */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* liborc before 0.4.34 (Debian 12 ships 0.4.33) is not thread-safe while it compiles vector code
 * (libvips#1211, sharp#3677: heap corruption under concurrent resizes, seen here once in ~40,000
 * thumbnails on two threads). With such an orc, vips' orc paths are switched off at load, as sharp
 * does: a little more CPU per thumbnail, and no crash. */
static int ifv_orc_is_thread_safe(void *vips_handle) {
    const char *(*version)(void) = (const char *(*)(void))dlsym(vips_handle, "orc_version_string");
    if (version == NULL) return 1;  /* no orc at all */
    int major = 0, minor = 0, micro = 0;
    if (sscanf(version(), "%d.%d.%d", &major, &minor, &micro) != 3) return 0;
    return major > 0 || minor > 4 || (minor == 4 && micro >= 34);
}
static int (*p_vips_version)(int flag);

static int concurrency;                   /* ifv_set_concurrency's value; 0 = libvips' own default */
static int load_status = -1;              /* 0 after a successful load; written once under load_once */
static char load_error[512];

static void ifv_silent_log(const char *domain, int level, const char *message, void *user_data) {
    (void)domain; (void)level; (void)message; (void)user_data;
}

#define RESOLVE(name)                                                                     \
    do {                                                                                  \
        *(void **)(&p_##name) = dlsym(handle, #name);                                     \
        if (p_##name == NULL) {                                                           \
            snprintf(load_error, sizeof load_error, "libvips: missing symbol %s", #name); \
            return;                                                                       \
        }                                                                                 \
    } while (0)

static void ifv_do_load(void) {
    /* Lazy binding: a symbol is resolved on its first call, not all of libvips' at load (Debian's
     * libvips and most of its libraries are linked BIND_NOW, which this cannot change: ~21 M
     * instructions saved, not more). Global: the modules opened later bind to libvips' symbols. */
    void *handle = dlopen("libvips.so.42", RTLD_LAZY | RTLD_GLOBAL);
    if (handle == NULL) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libvips.so.42: %s", e ? e : "unknown error");
        return;
    }
    RESOLVE(vips_init);
    RESOLVE(vips_thumbnail_buffer);
    RESOLVE(vips_thumbnail_image);
    RESOLVE(vips_image_new_from_buffer);
    RESOLVE(vips_image_write_to_buffer);
    RESOLVE(vips_image_get_width);
    RESOLVE(vips_image_get_height);
    RESOLVE(vips_image_get_page_height);
    RESOLVE(vips_image_get_bands);
    RESOLVE(vips_image_hasalpha);
    RESOLVE(vips_image_get_n_pages);
    RESOLVE(vips_foreign_find_load_buffer);
    RESOLVE(vips_foreign_find_save_buffer);
    RESOLVE(vips_nickname_find);
    RESOLVE(vips_error_buffer_copy);
    RESOLVE(vips_error_clear);
    RESOLVE(vips_block_untrusted_set);
    RESOLVE(vips_cache_set_max);
    RESOLVE(vips_concurrency_set);
    RESOLVE(vips_avg);
    RESOLVE(g_object_unref);
    RESOLVE(g_free);
    RESOLVE(g_type_from_name);
    RESOLVE(g_log_set_handler);
    if (ifv__finish_resolve(handle, load_error, sizeof load_error) != 0) return;
    if (ifv__outputs_resolve(handle, load_error, sizeof load_error) != 0) return;
    if (ifv__common_resolve(handle, load_error, sizeof load_error) != 0) return;
    if (ifv__profile_resolve(handle, load_error, sizeof load_error) != 0) return;
    if (ifv__cropfirst_resolve(handle, load_error, sizeof load_error) != 0) return;
    if (ifv__animated_resolve(handle, load_error, sizeof load_error) != 0) return;
    p_vips_version = (int (*)(int))dlsym(handle, "vips_version");

    /* Silence VIPS-WARNING and friends before init (init itself may warn about modules). */
    p_g_log_set_handler("VIPS",
                        IFV_G_LOG_LEVEL_WARNING | IFV_G_LOG_LEVEL_MESSAGE | IFV_G_LOG_LEVEL_INFO |
                            IFV_G_LOG_LEVEL_DEBUG | IFV_G_LOG_FLAG_FATAL | IFV_G_LOG_FLAG_RECURSION,
                        ifv_silent_log, NULL);

    if (p_vips_init("imgfetch") != 0) {
        char *e = p_vips_error_buffer_copy();
        snprintf(load_error, sizeof load_error, "vips_init failed: %s", e ? e : "");
        if (e) p_g_free(e);
        return;
    }
    /* The heif and jxl modules are opened when a call needs one (vips_modules.c), then blocked again. */
    if (p_vips_version != NULL) ifv__modules_locate((void *)p_vips_init, p_vips_version(0), p_vips_version(1));
    ifv__block_untrusted();
    p_vips_cache_set_max(0);
    if (concurrency > 0 && getenv("VIPS_CONCURRENCY") == NULL) p_vips_concurrency_set(concurrency);
    if (!ifv_orc_is_thread_safe(handle)) {
        void (*set_vector)(int) = (void (*)(int))dlsym(handle, "vips_vector_set_enabled");
        if (set_vector != NULL) set_vector(0);
    }
    p_vips_error_clear();
    ifv__common_loaded();
    load_status = 0;
}

void ifv__block_untrusted(void) {
    /* Applies to the operations registered by then: called again after a module is opened. */
    p_vips_block_untrusted_set(1);
    ifv__apply_jxl_permission();
}

int ifv_load(char *err, size_t errlen) {
    pthread_once(&load_once, ifv_do_load);
    if (load_status != 0) {
        ifv__copy_msg(err, errlen, load_error);
        return -1;
    }
    return 0;
}

int ifv_version(char *version, size_t len, char *err, size_t errlen) {
    if (ifv_load(err, errlen) != 0) return -1;
    if (p_vips_version == NULL) {
        ifv__copy_msg(err, errlen, "libvips: no vips_version");
        return -1;
    }
    snprintf(version, len, "%d.%d.%d", p_vips_version(0), p_vips_version(1), p_vips_version(2));
    return 0;
}

/* Every entry point below requires a successful load (vips calls before vips_init segfault). */
#define REQUIRE_LOADED(err, errlen, failret) \
    do {                                     \
        if (ifv_load(err, errlen) != 0) return failret; \
    } while (0)

void ifv_set_concurrency(int n) {
    concurrency = n < 0 ? 0 : n;
    if (load_status == 0 && concurrency > 0 && getenv("VIPS_CONCURRENCY") == NULL) p_vips_concurrency_set(concurrency);
}

/* ---- header ------------------------------------------------------------------------------------ */

int ifv__read_header_once(const void *buf, size_t len, ifv_header *out, char *err, size_t errlen) {
    REQUIRE_LOADED(err, errlen, -1);
    if (out == NULL) {
        ifv__copy_msg(err, errlen, "ifv_read_header: no output");
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (buf == NULL || len == 0) {
        ifv__copy_msg(err, errlen, "empty input: not an image");
        return -1;
    }
    const char *cls = p_vips_foreign_find_load_buffer(buf, len);
    if (cls == NULL) {
        ifv__take_error(err, errlen, "not a known image format");
        return -1;
    }
    VipsImage *img = p_vips_image_new_from_buffer(buf, len, "", "access", IFV_VIPS_ACCESS_SEQUENTIAL, NULL);
    if (img == NULL) {
        ifv__take_error(err, errlen, "cannot read image header");
        return -1;
    }
    out->width = p_vips_image_get_width(img);
    out->height = p_vips_image_get_height(img);
    out->bands = p_vips_image_get_bands(img);
    out->has_alpha = p_vips_image_hasalpha(img) ? 1 : 0;
    int pages = p_vips_image_get_n_pages(img);
    out->pages = pages > 0 ? pages : 1;
    out->has_profile = ifv__has_profile(img) && !ifv__profile_unusable(img, out->profile_problem, sizeof out->profile_problem);
    /* find_load_buffer gives the class name ("VipsForeignLoadJpegBuffer"): map it to the
     * operation nickname ("jpegload_buffer"). */
    const char *nick = NULL;
    GType type = p_g_type_from_name(cls);
    if (type != 0) nick = p_vips_nickname_find(type);
    ifv__copy_msg(out->loader, sizeof out->loader, nick ? nick : cls);
    p_g_object_unref(img);
    p_vips_error_clear();
    return 0;
}

/* ---- validate ---------------------------------------------------------------------------------- */

/* How strict every decode is: an error or a truncation fails it, a loader's warning does not (a GIF
 * frame reaching past the canvas, which libnsgif clips and every viewer shows; a frame it cannot
 * decode still fails). JPEGs are judged before libvips sees them, by libjpeg's check (ifj_validate,
 * jpeg_fast.c: a warning fails it unless it is stray bytes before the first scan), so libvips
 * 8.14.1's own, racy JPEG warning check is not needed. */
#define IFV_FAIL_ON "fail_on=error"

int ifv__validate_once(const void *buf, size_t len, char *err, size_t errlen) {
    REQUIRE_LOADED(err, errlen, -1);
    if (buf == NULL || len == 0) {
        ifv__copy_msg(err, errlen, "empty input: not an image");
        return -1;
    }
    VipsImage *img = p_vips_image_new_from_buffer(buf, len, IFV_FAIL_ON,
                                                  "access", IFV_VIPS_ACCESS_SEQUENTIAL, NULL);
    if (img == NULL) {
        ifv__take_error(err, errlen, "cannot load image");
        return -1;
    }
    double avg = 0;
    int rc = p_vips_avg(img, &avg, NULL);
    p_g_object_unref(img);
    if (rc != 0) {
        ifv__take_error(err, errlen, "image decode failed");
        return -1;
    }
    p_vips_error_clear();
    return 0;
}

/* ---- thumbnail --------------------------------------------------------------------------------- */

int ifv__thumbnail_once(const void *buf, size_t len, const ifv_thumb_opts *opts,
                        void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen) {
    REQUIRE_LOADED(err, errlen, -1);
    if (out) *out = NULL;
    if (out_len) *out_len = 0;
    if (out_w) *out_w = 0;
    if (out_h) *out_h = 0;
    if (opts == NULL || out == NULL || out_len == NULL) {
        ifv__copy_msg(err, errlen, "ifv_thumbnail: missing arguments");
        return -1;
    }
    if (buf == NULL || len == 0) {
        ifv__copy_msg(err, errlen, "empty input: not an image");
        return -1;
    }
    if (opts->width <= 0 || opts->height <= 0) {
        ifv__copy_msg(err, errlen, "thumbnail box must be positive");
        return -1;
    }
    char suffix[160];
    if (ifv__suffix(opts->save_suffix, opts->quality, !opts->keep_exif && !opts->keep_icc, suffix, sizeof suffix) != 0) {
        ifv__copy_msg(err, errlen, "invalid save suffix");
        return -1;
    }

    /* Only a tagged source is converted to sRGB (exporting an untagged one shifts it in 8.14.1: white
     * becomes 250,253,253), CMYK even with keep_icc; untagged CMYK is vips_thumbnail's (built-in profile). */
    VipsImage *hdr = p_vips_image_new_from_buffer(buf, len, "", "access", IFV_VIPS_ACCESS_SEQUENTIAL, NULL);
    if (hdr == NULL) {
        ifv__take_error(err, errlen, "cannot read image header");
        return -1;
    }
    /* A profile that cannot be used counts as none: no conversion, and not kept (keep_icc). */
    ifv_thumb_opts own = *opts;
    if (ifv__profile_unusable(hdr, NULL, 0)) own.keep_icc = 0;
    int convert = ifv__has_profile(hdr) && !ifv__profile_unusable(hdr, NULL, 0) && (!opts->keep_icc || ifv__is_cmyk(hdr));
    double intermediate = 0;
    int crop_first = ifv__cover_intermediate(hdr, opts, &intermediate);
    p_g_object_unref(hdr);
    opts = &own;

    VipsImage *thumb = NULL;
    int crop = opts->crop >= IFV_VIPS_INTERESTING_CENTRE && opts->crop <= IFV_VIPS_INTERESTING_ATTENTION ? opts->crop : IFV_VIPS_INTERESTING_NONE;
    /* fail_on must travel in the loader option string: the direct option is ignored in 8.14.1.
     * (JPEG warnings are judged by ifj_validate, which callers run first: see IFV_FAIL_ON.)
     * n=-1 loads every frame of an animation (stacked, page-height set), which vips_thumbnail
     * resizes frame by frame. */
    const char *load_opts = opts->all_pages ? IFV_FAIL_ON ",n=-1" : IFV_FAIL_ON;
    int rc0 = crop_first ? ifv__cropfirst_thumbnail(buf, len, opts, load_opts, convert, &thumb)
                         : ifv__animated_thumbnail(buf, len, opts, load_opts, convert, &thumb);
    if (rc0 == 1)
        rc0 = p_vips_thumbnail_buffer((void *)buf, len, &thumb, opts->width, "height", opts->height,
                                            "size", opts->upscale ? IFV_VIPS_SIZE_BOTH : IFV_VIPS_SIZE_DOWN, "crop", crop, "linear", opts->linear ? 1 : 0,
                                            "option_string", load_opts,
                                            convert ? "export_profile" : NULL, "srgb", NULL);
    if (rc0 == 0 && thumb != NULL && ifv__finish(&thumb, opts) != 0) rc0 = -1;
    if (rc0 != 0 || thumb == NULL) {
        if (thumb) p_g_object_unref(thumb);
        ifv__take_error(err, errlen, "thumbnail failed");
        return -1;
    }
    int w = p_vips_image_get_width(thumb);
    int h = p_vips_image_get_page_height(thumb);   /* of one frame */

    /* Lazy one-pass pipeline: decoding happens here, exactly once. */
    void *obuf = NULL;
    size_t olen = 0;
    int rc = ifv__save(thumb, opts, suffix, &obuf, &olen);
    p_g_object_unref(thumb);
    if (rc != 0 || obuf == NULL) {
        if (obuf) p_g_free(obuf);
        ifv__take_error(err, errlen, "encoding failed");
        return -1;
    }
    *out = obuf;
    *out_len = olen;
    if (out_w) *out_w = w;
    if (out_h) *out_h = h;
    p_vips_error_clear();
    return 0;
}

void ifv_free(void *p) {
    if (p == NULL) return;
    /* Any non-NULL buffer came from vips (g_malloc), so the library is loaded. */
    if (p_g_free != NULL) p_g_free(p);
}

int ifv__can_save_once(const char *suffix) {
    if (suffix == NULL || ifv_load(NULL, 0) != 0) return 0;
    const char *saver = p_vips_foreign_find_save_buffer(suffix);
    /* ".avif" is saved through the heif buffer saver (see ifv__suffix in vips_common.c). */
    if (saver == NULL && ifv__suffix_is(suffix, ".avif")) saver = p_vips_foreign_find_save_buffer(".heif");
    p_vips_error_clear();
    return saver != NULL ? 1 : 0;
}
