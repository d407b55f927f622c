/* fuzz_decoders.c: libFuzzer targets png, webp and gif for the decoders of PNG, WebP and GIF sources
 * (Sources/CDecoders) and the thumbnail made from their pixels (CCodecs' codecs_resize.c): FUZZ_TARGET
 * picks the decoder. The first input byte picks the box (so the fuzzer explores WebP's scaled decode
 * and the resize), the rest is the image. libpng, libwebp and giflib are dlopen'ed as in the shim.
 * Built by scripts/fuzz.sh with clang -fsanitize=fuzzer,address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdecoders.h"

static int target = 0;   /* IFD_PNG, IFD_WEBP or IFD_GIF */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *t = getenv("FUZZ_TARGET");
    target = t == NULL ? 0 : !strcmp(t, "png") ? IFD_PNG : !strcmp(t, "webp") ? IFD_WEBP : !strcmp(t, "gif") ? IFD_GIF : 0;
    if (target == 0) abort();   /* scripts/fuzz.sh names the target */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const int boxes[8] = { 1, 3, 16, 50, 64, 100, 333, 4000 };
    int w = boxes[data[0] & 7], h = boxes[(data[0] >> 3) & 7], crop = (data[0] >> 6) & 1;
    const uint8_t *image = data + 1;
    size_t len = size - 1;
    /* Kept small: the fuzzer hunts memory errors, not slow decodes of huge (valid) images. */
    const double max_pixels = 4e6;

    ifd_image im;
    ifd_box box = { w, h, crop, 0 };
    int status = target == IFD_PNG ? ifd_png_decode(image, len, max_pixels, &im)
               : target == IFD_WEBP ? ifd_webp_decode(image, len, &box, max_pixels, &im)
               : ifd_gif_decode(image, len, max_pixels, &im);
    if (status == IFD_OK) {
        if (im.pixels == NULL || im.width < 1 || im.height < 1 || im.channels < 1 || im.channels > 4 ||
            (double)im.source_width * im.source_height > max_pixels || im.frames < 1) abort();
        /* Touch every byte: ASan sees a short buffer. */
        unsigned sum = 0;
        for (size_t i = 0, n = (size_t)im.width * im.height * im.channels; i < n; i++) sum += im.pixels[i];
        if (sum == 0xFFFFFFFFu) abort();
        ifd_free(im.pixels);
    } else if (status != IFD_DECLINED) {
        abort();
    }

    ifd_opts opts = { .width = w, .height = h, .crop = crop, .max_pixels = max_pixels };
    ifd_result res;
    int t = ifd_thumbnail(image, len, &opts, &res);
    int sniffed = ifd_sniff(image, len);
    if (t == IFD_OK) {
        if (res.pixels == NULL || res.width < 1 || res.height < 1 || res.width > w || res.height > h || res.format != sniffed) abort();
        ifd_free(res.pixels);
    }
    /* The decoder and the thumbnail (which picks the decoder by the signature) agree on whether the
     * image is taken. */
    if (sniffed == target && (t == IFD_OK) != (status == IFD_OK)) abort();
    return 0;
}
