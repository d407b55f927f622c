/* jpeg_encode.c: 8-bit pixels -> JPEG with libjpeg alone, as libvips 8.14's jpegsave writes them
 * (jpeg_set_defaults, jpeg_set_quality(Q, TRUE), 4:2:0 below Q 90 and 4:4:4 from it, baseline,
 * optimize_coding when asked, no marker at all, not even JFIF's: strip), alpha
 * flattened first exactly as vips_flatten does for 8-bit pixels. For decoders other than libjpeg
 * (PNG, WebP, GIF stills: PixelSourcePath). libjpeg.so.62 is resolved with dlopen on first use;
 * its own symbols here, so jpeg_fast.c's stay private to it.
 */
#define _GNU_SOURCE
#include "cjpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

static struct jpeg_error_mgr *(*e_jpeg_std_error)(struct jpeg_error_mgr *);
static void (*e_jpeg_CreateCompress)(j_compress_ptr, int, size_t);
static void (*e_jpeg_mem_dest)(j_compress_ptr, unsigned char **, unsigned long *);
static void (*e_jpeg_set_defaults)(j_compress_ptr);
static void (*e_jpeg_set_quality)(j_compress_ptr, int, boolean);
static void (*e_jpeg_start_compress)(j_compress_ptr, boolean);
static JDIMENSION (*e_jpeg_write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
static void (*e_jpeg_finish_compress)(j_compress_ptr);
static void (*e_jpeg_destroy_compress)(j_compress_ptr);

static pthread_once_t encode_once = PTHREAD_ONCE_INIT;
static int encode_loaded = 0;

#define ERESOLVE(name)                                                   \
    do {                                                                 \
        *(void **)(&e_##name) = dlsym(handle, #name);                    \
        if (e_##name == NULL) return;                                    \
    } while (0)

static void ifj_encode_load(void) {
    void *handle = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    ERESOLVE(jpeg_std_error);
    ERESOLVE(jpeg_CreateCompress);
    ERESOLVE(jpeg_mem_dest);
    ERESOLVE(jpeg_set_defaults);
    ERESOLVE(jpeg_set_quality);
    ERESOLVE(jpeg_start_compress);
    ERESOLVE(jpeg_write_scanlines);
    ERESOLVE(jpeg_finish_compress);
    ERESOLVE(jpeg_destroy_compress);
    encode_loaded = 1;
}

struct ifj_encode_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
};

static void ifj_encode_error_exit(j_common_ptr cinfo) { longjmp(((struct ifj_encode_error *)cinfo->err)->jump, 1); }
static void ifj_encode_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* vips_flatten (8.14) for uchar pixels, max_alpha 255: each colour band
 * (p * a) / 255.0 + (bg * (255 - a)) / 255.0 in double, truncated to the byte. */
static void ifj_flatten_row(const unsigned char *in, int width, int channels, const unsigned char bg[3],
                            int out_channels, unsigned char *out) {
    int colours = channels - 1;
    for (int x = 0; x < width; x++, in += channels, out += out_channels) {
        int a = in[colours];
        for (int b = 0; b < out_channels; b++) {
            int p = in[colours == 1 ? 0 : b];
            out[b] = (unsigned char)((double)(p * a) / 255.0 + (double)(bg[b] * (255 - a)) / 255.0);
        }
    }
}

/* The components libvips would write: grey (1) or RGB (3). Grey with alpha flattened onto a
 * colour becomes RGB (ifv_flatten converts it to sRGB first). */
static int ifj_encode_components(const ifj_encode_opts *o, int channels) {
    if (channels == 1) return 1;
    if (channels == 3 || channels == 4) return 3;
    return (o->background[0] == o->background[1] && o->background[1] == o->background[2]) ? 1 : 3;
}

static int ifj_compress(const unsigned char *pixels, int width, int height, int channels, size_t stride,
                        const ifj_encode_opts *o, void **out, size_t *out_len);

int ifj_encode(const void *pixels, int width, int height, int channels, size_t stride,
               const ifj_encode_opts *opts, void **out, size_t *out_len) {
    *out = NULL;
    *out_len = 0;
    if (pixels == NULL || width < 1 || height < 1 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION ||
        channels < 1 || channels > 4 || stride < (size_t)width * (size_t)channels) return IFJ_DECLINED;
    pthread_once(&encode_once, ifj_encode_load);
    if (!encode_loaded) return IFJ_DECLINED;
    ifj_encode_opts defaults = { 0, 0, { 255, 255, 255 } };
    return ifj_compress(pixels, width, height, channels, stride, opts != NULL ? opts : &defaults, out, out_len);
}

/* ifj_encode once its arguments are checked and libjpeg is loaded. */
static int ifj_compress(const unsigned char *pixels, int width, int height, int channels, size_t stride,
                        const ifj_encode_opts *o, void **out, size_t *out_len) {
    /* volatile: live across setjmp (gcc's -Wclobbered). */
    volatile int components = ifj_encode_components(o, channels);
    int alpha = channels == 2 || channels == 4;

    struct jpeg_compress_struct c;
    struct ifj_encode_error jerr;
    unsigned char *outbuf = NULL;
    unsigned long outlen = 0;
    unsigned char *volatile row = NULL;
    c.err = e_jpeg_std_error(&jerr.mgr);
    jerr.mgr.error_exit = ifj_encode_error_exit;
    jerr.mgr.output_message = ifj_encode_output_message;
    if (setjmp(jerr.jump)) {
        /* The memory destination's buffer (malloc'ed, *its* latest one in outbuf) is not freed by
         * destroying the compressor. */
        e_jpeg_destroy_compress(&c);
        free(((unsigned char *volatile *)&outbuf)[0]);
        free((void *)row);
        return IFJ_DECLINED;
    }
    e_jpeg_CreateCompress(&c, JPEG_LIB_VERSION, sizeof c);
    if (alpha) {
        row = malloc((size_t)width * (size_t)components);
        if (row == NULL) longjmp(jerr.jump, 1);
    }
    e_jpeg_mem_dest(&c, &outbuf, &outlen);
    c.image_width = (JDIMENSION)width;
    c.image_height = (JDIMENSION)height;
    c.input_components = components;
    c.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    e_jpeg_set_defaults(&c);
    int quality = o->quality > 0 ? (o->quality > 100 ? 100 : o->quality) : 75;
    e_jpeg_set_quality(&c, quality, TRUE);
    c.optimize_coding = o->optimize_coding ? TRUE : FALSE;
    if (quality >= 90) {
        for (int i = 0; i < c.num_components; i++) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    }
    c.write_JFIF_header = FALSE;   /* jpegsave's strip leaves out the APP0 (JFIF) marker too */
    e_jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        const unsigned char *in = pixels + (size_t)c.next_scanline * stride;
        JSAMPROW r = (JSAMPROW)in;
        if (alpha) {
            ifj_flatten_row(in, width, channels, o->background, components, (unsigned char *)row);
            r = (JSAMPROW)row;
        }
        e_jpeg_write_scanlines(&c, &r, 1);
    }
    e_jpeg_finish_compress(&c);
    e_jpeg_destroy_compress(&c);
    free((void *)row);
    *out = outbuf;   /* libjpeg's memory destination allocates with malloc: ifj_free releases it */
    *out_len = (size_t)outlen;
    return IFJ_OK;
}
