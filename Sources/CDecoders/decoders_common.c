/* decoders_common.c: dlopen of the codec libraries and the pixel buffers (see decoders_internal.h). */
#include "decoders_internal.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ifd__open(const char *const *names, const char *const *syms, void **slots, size_t count) {
    for (const char *const *name = names; *name != NULL; name++) {
        void *lib = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) continue;
        size_t i = 0;
        for (; i < count; i++) {
            slots[i] = dlsym(lib, syms[i]);
            if (slots[i] == NULL) break;
        }
        if (i == count) return 0;   /* kept open for the process's life */
        for (size_t j = 0; j < count; j++) slots[j] = NULL;
        dlclose(lib);
    }
    return -1;
}

int ifd__size_ok(long long width, long long height, double max_pixels) {
    if (width <= 0 || height <= 0 || width > INT32_MAX || height > INT32_MAX) return 0;
    return (double)width * (double)height <= max_pixels;
}

unsigned char *ifd__alloc_pixels(int width, int height, int channels, double max_pixels) {
    if (!ifd__size_ok(width, height, max_pixels) || channels < 1 || channels > 4) return NULL;
    size_t row = (size_t)width * (size_t)channels;
    if ((size_t)height > SIZE_MAX / row) return NULL;
    return malloc(row * (size_t)height);
}

void ifd_free(void *p) { free(p); }

int ifd__exif_orientation(const unsigned char *d, size_t n) {
    if (n >= 6 && memcmp(d, "Exif\0\0", 6) == 0) {
        d += 6;
        n -= 6;
    }
    if (n < 8) return 0;
    int le = d[0] == 'I' && d[1] == 'I';
    if (!le && !(d[0] == 'M' && d[1] == 'M')) return 0;
#define U16(p) (le ? (unsigned)((p)[0] | (p)[1] << 8) : (unsigned)((p)[0] << 8 | (p)[1]))
#define U32(p) (le ? ((unsigned)(p)[0] | (unsigned)(p)[1] << 8 | (unsigned)(p)[2] << 16 | (unsigned)(p)[3] << 24) \
                   : ((unsigned)(p)[0] << 24 | (unsigned)(p)[1] << 16 | (unsigned)(p)[2] << 8 | (unsigned)(p)[3]))
    size_t ifd = U32(d + 4);
    if (ifd > n - 2) return 0;   /* n >= 8: no wrap-around whatever the offset */
    size_t count = U16(d + ifd);
    for (size_t i = 0; i < count; i++) {
        size_t e = ifd + 2 + i * 12;
        if (e > n - 12) return 0;
        if (U16(d + e) == 0x0112) {
            unsigned v = U16(d + e + 8);
            return v >= 1 && v <= 8 ? (int)v : 0;
        }
    }
    return 1;
#undef U16
#undef U32
}
