/* vips_modules.c: vips_init loads every module in <libdir>/vips-modules-M.m (ImageMagick, poppler,
 * openslide, heif, jxl), about 15 ms and 5 MB per process. With $VIPSHOME set (by the CLI, before any
 * thread exists) to a directory of ours, libvips looks in $VIPSHOME/<basename of its libdir> instead:
 * link only the image-format modules there. */
#define _GNU_SOURCE
#include "cvips.h"
#include "vips_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char module_home[1024];             /* set before ifv_load, read once inside it */

void ifv_set_module_home(const char *home) {
    if (home != NULL && strlen(home) < sizeof module_home) {
        strncpy(module_home, home, sizeof module_home - 1);
    }
}

static int ifv_mkdirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    return (mkdir(path, 0755) == 0 || errno == EEXIST) ? 0 : -1;
}

/* vips_init loads every module in <libdir>/vips-modules-M.m, where libdir is $VIPSHOME/<basename of
 * the configure-time libdir> when VIPSHOME is set. Link just the image-format modules there. */
void ifv_prepare_module_home(void *vips_symbol, int major, int minor) {
    /* Made whenever a home was given: used by this process when $VIPSHOME already names it,
     * otherwise by the next one (the CLI sets VIPSHOME only once the directory exists). */
    const char *home = getenv("VIPSHOME");
    if (module_home[0] == '\0' || (home != NULL && strcmp(home, module_home) != 0)) return;
    Dl_info info;
    if (dladdr(vips_symbol, &info) == 0 || info.dli_fname == NULL) return;
    char libdir[1024];
    snprintf(libdir, sizeof libdir, "%s", info.dli_fname);
    char *slash = strrchr(libdir, '/');
    if (slash == NULL) return;
    *slash = '\0';
    const char *base = strrchr(libdir, '/');
    base = base ? base + 1 : libdir;
    char src[1200], dst[1200];
    snprintf(src, sizeof src, "%s/vips-modules-%d.%d", libdir, major, minor);
    snprintf(dst, sizeof dst, "%s/%s/vips-modules-%d.%d", module_home, base, major, minor);
    if (ifv_mkdirs(dst) != 0) return;
    static const char *wanted[] = { "vips-heif.so", "vips-jxl.so" };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        char from[1300], to[1300];
        snprintf(from, sizeof from, "%s/%s", src, wanted[i]);
        snprintf(to, sizeof to, "%s/%s", dst, wanted[i]);
        if (access(from, R_OK) == 0) (void)symlink(from, to);  /* EEXIST: another process made it */
    }
}
