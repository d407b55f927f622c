/* png-decode.c: the floor of `make bench-instructions`' PNG rows: libpng decoding a PNG whole to 8-bit
 * rows (CRC and Adler-32 checks on, as libpng does by default), nothing else. Built by
 * scripts/bench-instructions.sh: gcc -O2 png-decode.c -lpng. Prints WIDTHxHEIGHT and a checksum. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: png-decode FILE.png\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) { perror(argv[1]); return 1; }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (png == NULL || info == NULL) return 1;
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "png-decode: %s: not a whole PNG\n", argv[1]); return 1; }
    png_init_io(png, f);
    png_read_info(png, info);
    png_set_expand(png);   /* palette and low bit depths to 8-bit, as an image decoder gives them */
    png_set_strip_16(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    size_t stride = png_get_rowbytes(png, info);
    unsigned char *pixels = malloc(stride * h);
    if (pixels == NULL) return 1;
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < h; y++) png_read_row(png, pixels + y * stride, NULL);
    }
    png_read_end(png, NULL);
    unsigned long sum = 0;
    for (size_t i = 0; i < stride * h; i += 4096) sum += pixels[i];
    printf("%ux%u %lu\n", (unsigned)w, (unsigned)h, sum);
    png_destroy_read_struct(&png, &info, NULL);
    free(pixels);
    fclose(f);
    return 0;
}
