/* gif_decode.c: a GIF's first frame -> 8-bit RGB/RGBA with giflib alone, as libvips 8.14's GIF
 * loader (libnsgif) gives it (see cdecoders.h). */
#include "decoders_internal.h"
#include <gif_lib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GIF_SYMBOLS(X) \
    X(DGifOpen) X(DGifCloseFile) X(DGifGetRecordType) X(DGifGetImageDesc) X(DGifGetLine) \
    X(DGifGetExtension) X(DGifGetExtensionNext) X(DGifGetCode) X(DGifGetCodeNext)

static struct {
#define X(name) __typeof__(name) *name;
    GIF_SYMBOLS(X)
#undef X
} G;
static int gif_loaded = 0;
static pthread_once_t gif_once = PTHREAD_ONCE_INIT;

static void gif_load(void) {
    static const char *const names[] = {"libgif.so.7", NULL};
    static const char *const syms[] = {
#define X(name) #name,
        GIF_SYMBOLS(X)
#undef X
    };
    gif_loaded = ifd__open(names, syms, (void **)&G, sizeof syms / sizeof syms[0]) == 0;
}

int ifd_gif_available(void) {
    pthread_once(&gif_once, gif_load);
    return gif_loaded;
}

typedef struct {
    const unsigned char *data;
    size_t len, pos;
} gif_reader;

static int gif_read(GifFileType *gif, GifByteType *out, int n) {
    gif_reader *r = gif->UserData;
    if (n < 0) return 0;
    size_t take = (size_t)n < r->len - r->pos ? (size_t)n : r->len - r->pos;
    memcpy(out, r->data + r->pos, take);
    r->pos += take;
    return (int)take;
}

/* The frame's colour indices, de-interlaced: width x height bytes, or NULL on a giflib error. */
static unsigned char *read_indices(GifFileType *gif, int width, int height, int interlaced) {
    unsigned char *idx = malloc((size_t)width * height);
    if (idx == NULL) return NULL;
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < (interlaced ? 4 : 1); pass++) {
        for (int y = interlaced ? start[pass] : 0; y < height; y += interlaced ? step[pass] : 1) {
            if (G.DGifGetLine(gif, idx + (size_t)y * width, width) == GIF_ERROR) {
                free(idx);
                return NULL;
            }
        }
    }
    return idx;
}

/* Reads an extension; *transparent = 1 when it is a graphic control extension whose transparency
 * flag is set, -1 when it is malformed. GIF_ERROR on a giflib error. */
static int read_extension(GifFileType *gif, int *transparent, int *transparent_index) {
    int code = 0;
    GifByteType *block = NULL;
    if (G.DGifGetExtension(gif, &code, &block) == GIF_ERROR) return GIF_ERROR;
    *transparent = 0;
    if (code == GRAPHICS_EXT_FUNC_CODE) {
        if (block == NULL || block[0] != 4) *transparent = -1;
        else if (block[1] & 0x01) {
            *transparent = 1;
            *transparent_index = block[4];
        }
    }
    while (block != NULL) {
        if (G.DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

int ifd_gif_decode(const void *buf, size_t len, double max_pixels, ifd_image *out) {
    if (out == NULL) return IFD_DECLINED;
    memset(out, 0, sizeof *out);
    if (buf == NULL || len < 13 || (memcmp(buf, "GIF87a", 6) != 0 && memcmp(buf, "GIF89a", 6) != 0)) return IFD_DECLINED;
    if (!ifd_gif_available()) return IFD_DECLINED;
    gif_reader reader = {.data = buf, .len = len};
    int error = 0;
    GifFileType *gif = G.DGifOpen(&reader, gif_read, &error);
    if (gif == NULL) return IFD_DECLINED;

    int status = IFD_DECLINED;
    unsigned char *indices = NULL;   /* the first frame's */
    int width = gif->SWidth, height = gif->SHeight;
    int any_transparency = 0;        /* libnsgif: any frame's control extension */
    int pending = 0, pending_index = -1;   /* the control extension before the next frame */
    int first_transparent = -1;      /* the first frame's transparent index, or -1 */
    GifColorType colours[256];
    int colour_count = 0;
    if (!ifd__size_ok(width, height, max_pixels)) goto done;
    for (;;) {
        GifRecordType type;
        if (G.DGifGetRecordType(gif, &type) == GIF_ERROR) goto done;
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            int t = 0, index = -1;
            if (read_extension(gif, &t, &index) == GIF_ERROR || t < 0) goto done;
            if (t) {
                pending = 1;
                pending_index = index;
                any_transparency = 1;
            }
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (G.DGifGetImageDesc(gif) == GIF_ERROR) goto done;
            GifImageDesc *d = &gif->Image;
            if (indices == NULL) {
                /* The first frame: exactly the logical screen, with a colour table. */
                if (d->Left != 0 || d->Top != 0 || d->Width != width || d->Height != height) goto done;
                const ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
                if (map == NULL || map->Colors == NULL || map->ColorCount < 1 || map->ColorCount > 256) goto done;
                colour_count = map->ColorCount;
                memcpy(colours, map->Colors, sizeof(GifColorType) * colour_count);
                first_transparent = pending ? pending_index : -1;
                indices = read_indices(gif, width, height, d->Interlace);
                if (indices == NULL) goto done;
            } else {
                /* Later frames: only their control extensions matter; their data is skipped undecoded. */
                int code_size = 0;
                GifByteType *block = NULL;
                if (G.DGifGetCode(gif, &code_size, &block) == GIF_ERROR) goto done;
                while (block != NULL) {
                    if (G.DGifGetCodeNext(gif, &block) == GIF_ERROR) goto done;
                }
            }
            pending = 0;
        } else {
            goto done;
        }
    }
    if (indices == NULL) goto done;

    int channels = any_transparency ? 4 : 3;
    unsigned char *pixels = ifd__alloc_pixels(width, height, channels, max_pixels);
    if (pixels == NULL) goto done;
    size_t n = (size_t)width * height;
    unsigned char *q = pixels;
    for (size_t i = 0; i < n; i++, q += channels) {
        int c = indices[i];
        if (c == first_transparent) {
            memset(q, 0, (size_t)channels);   /* libnsgif leaves the cleared (transparent black) pixel */
            continue;
        }
        if (c >= colour_count) {             /* past the table: what libnsgif shows is not defined */
            ifd_free(pixels);
            goto done;
        }
        q[0] = colours[c].Red;
        q[1] = colours[c].Green;
        q[2] = colours[c].Blue;
        if (channels == 4) q[3] = 255;
    }
    out->pixels = pixels;
    out->width = out->source_width = width;
    out->height = out->source_height = height;
    out->channels = channels;
    status = IFD_OK;
done:
    free(indices);
    G.DGifCloseFile(gif, &error);
    return status;
}
