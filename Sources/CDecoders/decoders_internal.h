/* decoders_internal.h: what the three decoders share (dlopen of one library, the output buffer). */
#ifndef DECODERS_INTERNAL_H
#define DECODERS_INTERNAL_H
#include "cdecoders.h"
#include <stddef.h>

/* Opens the first of `names` that loads and resolves every symbol of `syms` into `slots` (in
 * order). 0 when all resolved; -1 (the library closed again) otherwise. Not thread-safe: callers
 * run it under pthread_once. */
int ifd__open(const char *const *names, const char *const *syms, void **slots, size_t count);

/* width x height x channels bytes, or NULL when that overflows, exceeds max_pixels or memory is short. */
unsigned char *ifd__alloc_pixels(int width, int height, int channels, double max_pixels);

/* 1 when width x height is a size a decoder takes: both positive, the product within max_pixels. */
int ifd__size_ok(long long width, long long height, double max_pixels);

/* The EXIF Orientation (1-8) of a TIFF-structured EXIF block, with or without the "Exif\0\0" prefix
 * (libvips accepts both): 1 when the tag is absent, 0 when the block is malformed. */
int ifd__exif_orientation(const unsigned char *d, size_t len);

#endif
