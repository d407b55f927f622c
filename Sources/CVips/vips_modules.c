/* vips_modules.c: which libvips modules are loaded, from where, and when.
 *
 * vips_init loads every shared object in <libdir>/vips-modules-M.m (ImageMagick, poppler,
 * openslide, heif, jxl): time and memory in every process, for loaders an image fetcher never uses.
 * libdir is $VIPSHOME/<basename of the configure-time libdir> when VIPSHOME is set. So
 * ifv_restrict_modules (called while the process is single-threaded) points VIPSHOME at a path that
 * can never be a directory, and vips_init loads no module at all. The heif module (HEIF, AVIF) and
 * the jxl module are opened later, by absolute path in the directory of the libvips that was loaded,
 * and only by a call that needs one: a source whose first bytes are an ISO-BMFF `ftyp` box or a JPEG
 * XL signature (the bytes libvips' own heif and jxl loaders look for), or an AVIF/HEIF/JXL saver.
 * Opening the heif module costs ~37 M instructions (libde265's constructor ~24 M of it), so a JPEG,
 * PNG, WebP, GIF or TIFF never pays for it. Code comes only from the system's own module directory,
 * never from a directory a user can write to (an earlier imgfetch linked them from the cache, where a
 * planted .so would have run). */
#define _GNU_SOURCE
#include "cvips.h"
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A character device: "/dev/null/<anything>" fails with ENOTDIR, so no module directory exists under
 * it, and only root can replace it (who could replace libvips itself). */
static const char no_modules_home[] = "/dev/null";
static int restricted;
static char module_dir[1100];   /* set once by ifv__modules_locate, under ifv_load's pthread_once */
static int opened;              /* IFV_MODULE_* bits tried; written under the exclusive lock, read atomically */

void ifv_restrict_modules(void) {
    if (getenv("VIPSHOME") == NULL) setenv("VIPSHOME", no_modules_home, 1);
    const char *home = getenv("VIPSHOME");
    restricted = home != NULL && strcmp(home, no_modules_home) == 0;
}

void ifv__modules_locate(void *vips_symbol, int major, int minor) {
    if (!restricted) return;  /* a VIPSHOME set by the user: vips_init loaded what it names */
    Dl_info info;
    if (dladdr(vips_symbol, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/') return;
    char libdir[1024];
    snprintf(libdir, sizeof libdir, "%s", info.dli_fname);
    char *slash = strrchr(libdir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    snprintf(module_dir, sizeof module_dir, "%s/vips-modules-%d.%d", libdir, major, minor);
}

int ifv__modules_for_bytes(const void *buf, size_t len) {
    const unsigned char *p = buf;
    if (p == NULL) return 0;
    if (len >= 12 && memcmp(p + 4, "ftyp", 4) == 0) return IFV_MODULE_HEIF;
    if (len >= 2 && p[0] == 0xff && p[1] == 0x0a) return IFV_MODULE_JXL;   /* a bare codestream */
    static const unsigned char jxl_box[12] = {0, 0, 0, 0x0c, 'J', 'X', 'L', ' ', 0x0d, 0x0a, 0x87, 0x0a};
    if (len >= 12 && memcmp(p, jxl_box, 12) == 0) return IFV_MODULE_JXL;
    return 0;
}

int ifv__modules_for_suffix(const char *suffix) {
    if (suffix == NULL) return 0;
    if (strncasecmp(suffix, ".avif", 5) == 0 || strncasecmp(suffix, ".heif", 5) == 0 || strncasecmp(suffix, ".heic", 5) == 0) {
        return IFV_MODULE_HEIF;
    }
    return strncasecmp(suffix, ".jxl", 4) == 0 ? IFV_MODULE_JXL : 0;
}

int ifv__modules_missing(int mask) {
    if (!restricted) return 0;
    return mask & ~__atomic_load_n(&opened, __ATOMIC_ACQUIRE);
}

int ifv__modules_open(int mask) {
    int missing = ifv__modules_missing(mask);
    if (missing == 0) return 0;
    if (module_dir[0] != '\0') {
        /* g_module_open, as vips_init itself loads modules: each module's g_module_check_init registers
         * its loaders and savers. libgmodule is a dependency of libvips, so it is already loaded. */
        typedef void *(*g_module_open_fn)(const char *, int);
        g_module_open_fn open_module = (g_module_open_fn)dlsym(RTLD_DEFAULT, "g_module_open");
        static const struct { int bit; const char *file; } modules[] = {
            {IFV_MODULE_HEIF, "vips-heif.so"}, {IFV_MODULE_JXL, "vips-jxl.so"}};
        for (size_t i = 0; open_module != NULL && i < sizeof modules / sizeof modules[0]; i++) {
            if (!(missing & modules[i].bit)) continue;
            char path[1200];
            snprintf(path, sizeof path, "%s/%s", module_dir, modules[i].file);
            (void)open_module(path, 1 /* G_MODULE_BIND_LAZY */);  /* kept open for the process's life */
        }
    }
    /* Tried once: a module that is not installed is not looked for again. */
    __atomic_store_n(&opened, opened | missing, __ATOMIC_RELEASE);
    return 1;
}

/* ---- JXL input (--allow-jxl) ---- */

static int jxl_allowed;

void ifv_allow_jxl(void) { jxl_allowed = 1; }

void ifv__apply_jxl_permission(void) {
    if (!jxl_allowed) return;
    /* vips_operation_block_set (8.13+) applies to the class named and its subclasses: the file,
     * buffer and source loaders. The saver (VipsForeignSaveJxl*) stays blocked. */
    typedef void (*block_set_fn)(const char *, int);
    block_set_fn block_set = (block_set_fn)dlsym(RTLD_DEFAULT, "vips_operation_block_set");
    if (block_set != NULL) block_set("VipsForeignLoadJxl", 0);
}
