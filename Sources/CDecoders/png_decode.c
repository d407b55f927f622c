/* png_decode.c: PNG -> 8-bit RGB/RGBA with libpng16 alone (see cdecoders.h for what declines). */
#include "decoders_internal.h"
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define PNG_SYMBOLS(X) \
    X(png_create_read_struct) X(png_create_info_struct) X(png_destroy_read_struct) X(png_get_error_ptr) \
    X(png_set_read_fn) X(png_get_io_ptr) X(png_set_option) X(png_read_info) X(png_get_IHDR) X(png_get_valid) \
    X(png_set_palette_to_rgb) X(png_set_tRNS_to_alpha) X(png_set_expand_gray_1_2_4_to_8) X(png_set_gray_to_rgb) \
    X(png_set_interlace_handling) X(png_read_update_info) X(png_get_rowbytes) X(png_get_channels) \
    X(png_read_image) X(png_error) X(png_get_pHYs)

static struct {
#define X(name) __typeof__(name) *name;
    PNG_SYMBOLS(X)
#undef X
} P;
static int png_loaded = 0;
static pthread_once_t png_once = PTHREAD_ONCE_INIT;

static void png_load(void) {
    static const char *const names[] = {"libpng16.so.16", NULL};
    static const char *const syms[] = {
#define X(name) #name,
        PNG_SYMBOLS(X)
#undef X
    };
    png_loaded = ifd__open(names, syms, (void **)&P, sizeof syms / sizeof syms[0]) == 0;
}

int ifd_png_available(void) {
    pthread_once(&png_once, png_load);
    return png_loaded;
}

typedef struct {
    const unsigned char *data;
    size_t len, pos;
    int warned;
    jmp_buf jump;
} png_reader;

static void png_on_error(png_structp png, png_const_charp msg) {
    (void)msg;
    png_reader *r = P.png_get_error_ptr(png);
    longjmp(r->jump, 1);
}

/* Any warning declines (libvips then decodes as today): a CRC error in an ancillary chunk, a
 * chunk too large for libpng's limits, ... */
static void png_on_warning(png_structp png, png_const_charp msg) {
    (void)msg;
    png_reader *r = P.png_get_error_ptr(png);
    r->warned = 1;
}

static void png_read_bytes(png_structp png, png_bytep out, size_t n) {
    png_reader *r = P.png_get_io_ptr(png);
    if (n > r->len - r->pos) P.png_error(png, "not enough data");
    memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

int ifd_png_decode(const void *buf, size_t len, double max_pixels, ifd_image *out) {
    if (out == NULL) return IFD_DECLINED;
    memset(out, 0, sizeof *out);
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (buf == NULL || len < 8 || memcmp(buf, signature, 8) != 0 || !ifd_png_available()) return IFD_DECLINED;

    png_reader reader = {.data = buf, .len = len};
    /* What is read after a longjmp lives in this block (not in locals a longjmp may clobber). */
    struct held { png_structp png; png_infop info; unsigned char *pixels; png_bytep *rows; } *held = calloc(1, sizeof *held);
    if (held == NULL) return IFD_DECLINED;
    volatile int status = IFD_DECLINED;
    /* libpng's errors (from png_create_read_struct on) return by longjmp here (png_on_error). */
    if (setjmp(reader.jump) != 0) goto done;
    held->png = P.png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, png_on_error, png_on_warning);
    if (held->png == NULL) goto done;
    held->info = P.png_create_info_struct(held->png);
    if (held->info == NULL) goto done;
    png_structp png = held->png;
    png_infop info = held->info;
    P.png_set_read_fn(png, &reader, png_read_bytes);
    /* libvips 8.14 reads a PNG without checking zlib's Adler-32 (the chunks' CRCs stay checked): so
     * does this decoder, which then decodes what libvips decodes, and zlib skips computing it. */
    P.png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_uint_32 width = 0, height = 0;
    int depth = 0, colour = 0, interlace = 0;
    P.png_read_info(png, info);
    if (reader.warned) goto done;
    P.png_get_IHDR(png, info, &width, &height, &depth, &colour, &interlace, NULL, NULL);
    if (depth > 8 || P.png_get_valid(png, info, PNG_INFO_iCCP) || P.png_get_valid(png, info, PNG_INFO_eXIf)) goto done;
    if (!ifd__size_ok(width, height, max_pixels)) goto done;
    int alpha = (colour & PNG_COLOR_MASK_ALPHA) != 0;
    if (colour == PNG_COLOR_TYPE_PALETTE) P.png_set_palette_to_rgb(png);
    if (P.png_get_valid(png, info, PNG_INFO_tRNS)) {
        P.png_set_tRNS_to_alpha(png);
        alpha = 1;
    }
    int colour_bands = colour == PNG_COLOR_TYPE_PALETTE || (colour & PNG_COLOR_MASK_COLOR) ? 3 : 1;
    if (colour_bands == 1 && depth < 8) P.png_set_expand_gray_1_2_4_to_8(png);
    /* vipspng.c's resolution: 72 dpi unless pHYs says; a unit-less pHYs is taken as pixels per mm. */
    png_uint_32 res_x = (png_uint_32)(72.0 / 2.54 * 100.0), res_y = res_x;
    int unit = PNG_RESOLUTION_METER;
    P.png_get_pHYs(png, info, &res_x, &res_y, &unit);
    double xres = unit == PNG_RESOLUTION_METER ? res_x / 1000.0 : res_x;
    double yres = unit == PNG_RESOLUTION_METER ? res_y / 1000.0 : res_y;
    if (res_x != res_y || xres != yres || xres * 1000 > 2e9) goto done;
    P.png_set_interlace_handling(png);
    P.png_read_update_info(png, info);
    int channels = colour_bands + alpha;
    if (P.png_get_channels(png, info) != channels || P.png_get_rowbytes(png, info) != (size_t)width * channels) goto done;
    held->pixels = ifd__alloc_pixels((int)width, (int)height, channels, max_pixels);
    held->rows = malloc(sizeof(png_bytep) * height);
    if (held->pixels == NULL || held->rows == NULL) goto done;
    for (png_uint_32 y = 0; y < height; y++) held->rows[y] = held->pixels + (size_t)y * width * channels;
    P.png_read_image(png, held->rows);
    if (reader.warned) goto done;
    out->pixels = held->pixels;
    held->pixels = NULL;
    out->width = out->source_width = (int)width;
    out->height = out->source_height = (int)height;
    out->channels = channels;
    out->pixels_per_metre = (int)(xres * 1000 + 0.5);
    out->frames = 1;
    status = IFD_OK;
done:
    if (held->png != NULL) P.png_destroy_read_struct(&held->png, held->info ? &held->info : NULL, NULL);
    free(held->pixels);
    free(held->rows);
    free(held);
    return status;
}
