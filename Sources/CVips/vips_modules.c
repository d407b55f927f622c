/* vips_modules.c: which libvips modules are loaded, and from where.
 *
 * vips_init loads every shared object in <libdir>/vips-modules-M.m (ImageMagick, poppler,
 * openslide, heif, jxl): time and memory in every process, for loaders an image fetcher never uses.
 * libdir is $VIPSHOME/<basename of the configure-time libdir> when VIPSHOME is set. So
 * ifv_restrict_modules (called while the process is single-threaded) points VIPSHOME at a path that
 * can never be a directory, vips_init loads no module at all, and ifv_load_format_modules then opens
 * the heif and jxl modules by absolute path in the directory of the libvips that was loaded: code
 * comes only from the system's own module directory, never from a directory a user can write to
 * (an earlier imgfetch linked them from the cache, where a planted .so would have run). */
#define _GNU_SOURCE
#include "cvips.h"
#include "vips_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A character device: "/dev/null/<anything>" fails with ENOTDIR, so no module directory exists under
 * it, and only root can replace it (who could replace libvips itself). */
static const char no_modules_home[] = "/dev/null";
static int restricted;

void ifv_restrict_modules(void) {
    if (getenv("VIPSHOME") == NULL) setenv("VIPSHOME", no_modules_home, 1);
    const char *home = getenv("VIPSHOME");
    restricted = home != NULL && strcmp(home, no_modules_home) == 0;
}

void ifv_load_format_modules(void *vips_symbol, int major, int minor) {
    if (!restricted) return;  /* a VIPSHOME set by the user: vips_init loaded what it names */
    Dl_info info;
    if (dladdr(vips_symbol, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/') return;
    char libdir[1024];
    snprintf(libdir, sizeof libdir, "%s", info.dli_fname);
    char *slash = strrchr(libdir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    /* g_module_open, as vips_init itself loads modules: each module's g_module_check_init registers
     * its loaders and savers. libgmodule is a dependency of libvips, so it is already loaded. */
    typedef void *(*g_module_open_fn)(const char *, int);
    g_module_open_fn open_module = (g_module_open_fn)dlsym(RTLD_DEFAULT, "g_module_open");
    if (open_module == NULL) return;
    static const char *wanted[] = { "vips-heif.so", "vips-jxl.so" };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/vips-modules-%d.%d/%s", libdir, major, minor, wanted[i]);
        (void)open_module(path, 1 /* G_MODULE_BIND_LAZY */);  /* kept open for the process's life */
    }
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
