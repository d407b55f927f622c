/* vips_common.c: the helpers every file of the libvips shim may use, which use none of them: vips'
 * error buffer (read, then cleared) and the save suffix of a saver and quality. The loader
 * (vips_shim.c) resolves its functions and says when libvips is ready; nothing here loads it. */
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static char *(*c_vips_error_buffer_copy)(void);
static void (*c_vips_error_clear)(void);
static void (*c_g_free)(void *mem);
static int loaded;   /* set once by the loader under its pthread_once, before any reader */

int ifv__common_resolve(void *handle, char *err, size_t errlen) {
    IFV_RESOLVE(c_vips_error_buffer_copy, "vips_error_buffer_copy");
    IFV_RESOLVE(c_vips_error_clear, "vips_error_clear");
    IFV_RESOLVE(c_g_free, "g_free");
    return 0;
}

void ifv__common_loaded(void) { loaded = 1; }

void ifv__copy_msg(char *err, size_t errlen, const char *msg) {
    if (err == NULL || errlen == 0) return;
    if (msg == NULL) msg = "";
    snprintf(err, errlen, "%s", msg);
}

void ifv__take_error(char *err, size_t errlen, const char *fallback) {
    char *e = c_vips_error_buffer_copy();
    if (e != NULL && e[0] != '\0') {
        /* vips messages end in '\n': drop trailing whitespace. */
        size_t n = strlen(e);
        while (n > 0 && (e[n - 1] == '\n' || e[n - 1] == ' ')) e[--n] = '\0';
        ifv__copy_msg(err, errlen, e);
    } else {
        ifv__copy_msg(err, errlen, fallback);
    }
    if (e != NULL) c_g_free(e);
}

void ifv__error_clear(void) {
    if (loaded) c_vips_error_clear();
}

int ifv__suffix_is(const char *suffix, const char *a) { return strcasecmp(suffix, a) == 0; }

static int suffix_is_lossy(const char *s) {
    return ifv__suffix_is(s, ".jpg") || ifv__suffix_is(s, ".jpeg") || ifv__suffix_is(s, ".webp") ||
           ifv__suffix_is(s, ".avif") || ifv__suffix_is(s, ".heif") || ifv__suffix_is(s, ".heic");
}

/* ".jpg" -> ".jpg[Q=80,strip]". In 8.14.1 heifsave_buffer registers only ".heic"/".heif" (the
 * ".avif" suffix exists for the file saver only), so ".avif" is written as
 * ".heif[compression=av1,...]": the same saver, forced to AV1 (its default is HEVC), which yields
 * an ftyp brand "avif" file. Newer vips register ".avif" on the same saver, so this stays right. */
int ifv__suffix(const char *suffix, int quality, int strip, char *dst, size_t dstlen) {
    if (suffix == NULL || suffix[0] != '.' || strchr(suffix, '[') != NULL) return -1;
    char opts[96];
    opts[0] = '\0';
    const char *base = suffix;
    if (ifv__suffix_is(suffix, ".avif")) {
        base = ".heif";
        strcat(opts, "compression=av1,");
    }
    if (quality > 0 && suffix_is_lossy(suffix)) {
        if (quality > 100) quality = 100;
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "Q=%d,", quality);
    }
    strcat(opts, strip ? "strip" : "strip=false");  /* false: the fields ifv__finish left are written */
    int n = snprintf(dst, dstlen, "%s[%s]", base, opts);
    return (n < 0 || (size_t)n >= dstlen) ? -1 : 0;
}
