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

/* ---- the first frame's LZW data, decoded by libnsgif's rules (libvips 8.14's GIF loader) ----
 * giflib's own decoder passes codes libnsgif refuses (a code past the table: "Invalid frame
 * data"), so the image data, read by giflib as raw sub-blocks, is decoded here as libnsgif decodes
 * it: the same refusals, and the same picture when the data ends early (the zero-length block
 * before the last pixel: the rest stays cleared). */
enum { LZW_MAX_BITS = 12, LZW_TABLE = 1 << LZW_MAX_BITS, CLEARED = 0x100 };

typedef struct {
    const unsigned char *data;   /* the sub-blocks' bytes, concatenated */
    size_t len, bit;
} lzw_input;

/* 1 with *code (LSB first, as GIF packs them), 0 at the end of the data. */
static int lzw_read(lzw_input *in, unsigned size, unsigned *code) {
    if (in->bit + size > in->len * 8) return 0;
    size_t byte = in->bit >> 3;
    unsigned v = in->data[byte];
    if (byte + 1 < in->len) v |= (unsigned)in->data[byte + 1] << 8;
    if (byte + 2 < in->len) v |= (unsigned)in->data[byte + 2] << 16;
    *code = (v >> (in->bit & 7)) & ((1u << size) - 1);
    in->bit += size;
    return 1;
}

/* Writes the frame's pixels (colour indices, CLEARED where none is written or the transparent
 * index) in the rows' order (interlaced or not). 0 when libnsgif would refuse the data. */
static int lzw_decode(const unsigned char *data, size_t len, unsigned min_size, int transparent,
                      unsigned short *out, int width, int height, int interlaced) {
    if (min_size >= LZW_MAX_BITS) return 0;
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    unsigned short value[LZW_TABLE], first[LZW_TABLE], count[LZW_TABLE], extends[LZW_TABLE];
    unsigned char string[LZW_TABLE];
    lzw_input in = {data, len, 0};
    unsigned clear = 1u << min_size, eoi = clear + 1;
    for (unsigned i = 0; i < clear; i++) {
        value[i] = first[i] = (unsigned short)i;
        count[i] = 1;
        extends[i] = 0;
    }
    unsigned code_size = 0, code_max = 0, table_size = 0, code = 0, prev_first = 0, prev_count = 0, prev = 0;
    int pass = 0, y = 0, x = 0, done = 0, fresh = 1;
    while (!done) {
        if (fresh) {   /* a clear code (or the start): reset, skip further clears; the next code is a plain one */
            code_size = min_size + 1;
            code_max = (1u << code_size) - 1;
            table_size = eoi + 1;
            do {
                if (!lzw_read(&in, code_size, &code)) return 1;   /* data ended: the rest stays cleared */
            } while (code == clear);
            if (code > clear) return 0;
            fresh = 0;
        } else {
            if (!lzw_read(&in, code_size, &code)) return 1;
            if (code == eoi) return 1;
            if (code > table_size) return 0;
            if (code == clear) {
                fresh = 1;
                continue;
            }
            if (table_size < LZW_TABLE) {
                unsigned size = table_size;
                value[size] = (unsigned short)(code < size ? first[code] : prev_first);
                first[size] = (unsigned short)prev_first;
                count[size] = (unsigned short)(prev_count + 1);
                extends[size] = (unsigned short)prev;
                table_size++;
                if (size == code_max && code_size < LZW_MAX_BITS) {
                    code_size++;
                    code_max = (1u << code_size) - 1;
                }
            }
        }
        /* The code's string, last value first. */
        unsigned n = count[code], c = code;
        for (unsigned i = n; i-- > 0;) {
            string[i] = (unsigned char)value[c];
            c = extends[c];
        }
        for (unsigned i = 0; i < n && !done; i++) {
            out[(size_t)y * width + x] = string[i] == transparent ? CLEARED : string[i];
            if (++x == width) {
                x = 0;
                y += interlaced ? step[pass] : 1;
                while (interlaced && y >= height && pass < 3) y = start[++pass];
                if (y >= height) done = 1;
            }
        }
        prev_first = first[code];
        prev_count = count[code];
        prev = code;
    }
    return 1;
}

/* The frame's image data: giflib reads the sub-blocks (up to the zero-length one), decoded by
 * lzw_decode into width x height indices. NULL on a giflib error or data libnsgif refuses. */
static unsigned short *read_indices(GifFileType *gif, int width, int height, int interlaced, int transparent) {
    int code_size = 0;
    GifByteType *block = NULL;
    if (G.DGifGetCode(gif, &code_size, &block) == GIF_ERROR) return NULL;
    size_t n = (size_t)width * height, len = 0, cap = 4096;
    unsigned short *idx = malloc(n * sizeof *idx);
    unsigned char *data = malloc(cap);
    int ok = idx != NULL && data != NULL;
    while (ok && block != NULL) {
        size_t size = block[0];
        if (len + size > cap) {
            unsigned char *grown = realloc(data, cap = 2 * (len + size));
            if (grown == NULL) ok = 0; else data = grown;
        }
        if (ok) {
            memcpy(data + len, block + 1, size);
            len += size;
        }
        if (ok && G.DGifGetCodeNext(gif, &block) == GIF_ERROR) ok = 0;
    }
    if (ok) {
        for (size_t i = 0; i < n; i++) idx[i] = CLEARED;
        ok = code_size >= 0 && lzw_decode(data, len, (unsigned)code_size, transparent, idx, width, height, interlaced);
    }
    free(data);
    if (!ok) {
        free(idx);
        return NULL;
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
    unsigned short *indices = NULL;   /* the first frame's */
    int width = gif->SWidth, height = gif->SHeight;
    int any_transparency = 0;        /* libnsgif: any frame's control extension says transparent */
    int pending = 0, pending_index = -1;   /* the control extension before the next frame */
    int first_transparent = -1;      /* the first frame's transparent index, or -1 */
    GifColorType colours[256];
    int colour_count = 0, frames = 0;
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
            }
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (G.DGifGetImageDesc(gif) == GIF_ERROR) goto done;
            GifImageDesc *d = &gif->Image;
            frames++;
            if (pending) any_transparency = 1;   /* a control extension no frame follows counts for none */
            if (indices == NULL) {
                /* The first frame: exactly the logical screen, with a colour table. */
                if (d->Left != 0 || d->Top != 0 || d->Width != width || d->Height != height) goto done;
                const ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
                if (map == NULL || map->Colors == NULL || map->ColorCount < 1 || map->ColorCount > 256) goto done;
                colour_count = map->ColorCount;
                memcpy(colours, map->Colors, sizeof(GifColorType) * colour_count);
                first_transparent = pending ? pending_index : -1;
                indices = read_indices(gif, width, height, d->Interlace, first_transparent);
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
        if (c == CLEARED) {
            memset(q, 0, (size_t)channels);   /* libnsgif's cleared pixel: transparent black */
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
    out->pixels_per_metre = 1000;   /* gifload's 1 pixel per mm */
    out->frames = frames;
    status = IFD_OK;
done:
    free(indices);
    G.DGifCloseFile(gif, &error);
    return status;
}
