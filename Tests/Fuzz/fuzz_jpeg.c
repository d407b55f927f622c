/* fuzz_jpeg.c: libFuzzer target for the JPEG path (jpeg_fast.c + CCodecs' codecs_resize.c + jpeg_stream.c):
 * the thumbnail (decode at a DCT scale, Lanczos3 resize, encode) in both fit modes, the same decode
 * fed in pieces while "downloading" (which must give the same bytes or decline), and the strict
 * validation of originals. libjpeg is dlopen'ed as in the shim. Built by scripts/fuzz.sh with
 * clang -fsanitize=fuzzer,address. The first input byte picks the box (so the fuzzer explores the
 * scales and the resize), the rest is the JPEG. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cjpeg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const int boxes[8] = { 1, 3, 16, 50, 64, 100, 333, 4000 };
    int w = boxes[data[0] & 7], h = boxes[(data[0] >> 3) & 7];
    int crop = (data[0] >> 6) & 1;
    const uint8_t *jpeg = data + 1;
    size_t len = size - 1;

    /* Kept small: the fuzzer hunts memory errors, not slow decodes of huge (valid) images. */
    ifj_opts opts = { .width = w, .height = h, .crop = crop, .quality = (data[0] >> 7) ? 95 : 0, .max_pixels = 4e6 };
    ifj_result res;
    int status = ifj_thumbnail(jpeg, len, &opts, &res);
    if (status == IFJ_OK) {
        if (res.data == NULL || res.length == 0 || res.width < 1 || res.height < 1 || res.width > w || res.height > h) abort();
    } else if (status != IFJ_DECLINED && status != IFJ_CORRUPT) {
        abort();
    }

    /* The same bytes in pieces (their size from the first byte): exactly the thumbnail above, or a decline. */
    ifj_stream *stream = ifj_stream_new(&opts, 0);
    if (stream != NULL) {
        size_t piece = 1 + (size_t)(data[0] % 7) * 97;
        for (size_t at = 0; at < len; at += piece) ifj_stream_append(stream, jpeg + at, len - at < piece ? len - at : piece);
        ifj_stream_end(stream, 1);
        ifj_result streamed;
        if (ifj_stream_result(stream, len, &streamed) == IFJ_OK) {
            if (status != IFJ_OK || streamed.length != res.length || memcmp(streamed.data, res.data, res.length) != 0) abort();
            ifj_free(streamed.data);
        }
        ifj_stream_release(stream);
    }
    if (status == IFJ_OK) ifj_free(res.data);

    int width = 0, height = 0;
    char msg[256];
    int v = ifj_validate(jpeg, len, 4e6, &width, &height, msg, sizeof msg);
    if (v == IFJ_OK && (width < 1 || height < 1)) abort();
    /* A thumbnail libjpeg decoded without a warning is a JPEG the strict check passes, and back. */
    if ((status == IFJ_OK && v == IFJ_CORRUPT) || (status == IFJ_CORRUPT && v == IFJ_OK)) abort();

    /* The scan watcher (jpeg_scans.c): the same verdict and boundary whole or in pieces, a boundary
     * inside the bytes fed, and nothing more after a verdict. */
    ifj_scans *whole = ifj_scans_new(w, h, crop), *pieces = ifj_scans_new(w, h, crop);
    if (whole != NULL && pieces != NULL) {
        int a = ifj_scans_feed(whole, jpeg, len), b = IFJ_SCANS_WATCHING;
        size_t piece = 1 + (size_t)(data[0] % 5) * 61;
        for (size_t at = 0; at < len; at += piece) b = ifj_scans_feed(pieces, jpeg + at, len - at < piece ? len - at : piece);
        if (a != b || ifj_scans_boundary(whole) != ifj_scans_boundary(pieces) || ifj_scans_boundary(whole) > len) abort();
        if (a == IFJ_SCANS_STOP && ifj_scans_boundary(whole) < 4) abort();
    }
    ifj_scans_free(whole);
    ifj_scans_free(pieces);
    return 0;
}
