/* jpeg_internal.h: what jpeg_fast.c shares with jpeg_stream.c (not part of the module's API). The
 * resizer is CCodecs' (ccodecs.h). */
#ifndef IFJ_INTERNAL_H
#define IFJ_INTERNAL_H
#include <stdio.h>

#include <jpeglib.h>

#include "ccodecs.h"
#include "cjpeg.h"

/* Installs the decompressor's data source (a memory buffer, or a stream fed while downloading). */
typedef void (*ifj_src_setup)(j_decompress_ptr d, void *ctx);

/* The thumbnail of ifj_thumbnail, reading from whatever source `setup` installs. The source reports
 * the end of data as libjpeg's memory source does (a warning and a fake EOI), so both decline alike. */
int ifj__thumbnail_from(ifj_src_setup setup, void *ctx, const ifj_opts *opts, int streaming, ifj_result *res);

/* Streaming decodes run outside the processing pool's width limit, one per slow transfer, so
 * their memory is bounded here: they decline (and leave to the pool-bounded path) a progressive
 * JPEG above IFJ_STREAM_PROGRESSIVE_MAX_PIXELS, whose whole coefficient buffer (3-6 bytes a
 * pixel) libjpeg keeps, and a decode kept whole (no resize) above IFJ_STREAM_WHOLE_MAX_PIXELS.
 * At most IFJ_STREAM_DECODERS_PER_CORE x cores decode at once; the others decline. */
#define IFJ_STREAM_PROGRESSIVE_MAX_PIXELS 2e6
#define IFJ_STREAM_WHOLE_MAX_PIXELS 2e6
#define IFJ_STREAM_DECODERS_PER_CORE 4
/* libjpeg's default restart-marker resync (resolved with dlopen), for custom sources. */
boolean ifj__resync_to_restart(j_decompress_ptr d, int desired);

#endif
