/* jpeg_fast.c: JPEG -> JPEG thumbnails with libjpeg alone: decode at a DCT scale that leaves the
 * filter at least 2x (libvips' shrink-on-load rule), resize the rest with a Lanczos3 filter (over
 * the whole remaining factor: libvips box-shrinks part of it), encode. One small library instead
 * of libvips' 104: less time and memory per process (the README's figures).
 *
 * Conservative by design: anything this path does not handle exactly like libvips' thumbnail
 * (an ICC profile, CMYK/YCCK, an EXIF orientation other than 1, arithmetic coding, any libjpeg
 * warning such as a truncated file) returns IFJ_DECLINED, and the caller uses libvips instead.
 * libjpeg (libjpeg.so.62) is not linked: it is resolved with dlopen on first use.
 */
#define _GNU_SOURCE
#include "cjpeg.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_internal.h"

static struct jpeg_error_mgr *(*p_jpeg_std_error)(struct jpeg_error_mgr *);
static void (*p_jpeg_CreateDecompress)(j_decompress_ptr, int, size_t);
static void (*p_jpeg_CreateCompress)(j_compress_ptr, int, size_t);
static void (*p_jpeg_mem_src)(j_decompress_ptr, const unsigned char *, unsigned long);
static void (*p_jpeg_mem_dest)(j_compress_ptr, unsigned char **, unsigned long *);
static void (*p_jpeg_save_markers)(j_decompress_ptr, int, unsigned int);
static int (*p_jpeg_read_header)(j_decompress_ptr, boolean);
static boolean (*p_jpeg_start_decompress)(j_decompress_ptr);
static JDIMENSION (*p_jpeg_read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION);
static boolean (*p_jpeg_finish_decompress)(j_decompress_ptr);
static void (*p_jpeg_destroy_decompress)(j_decompress_ptr);
static void (*p_jpeg_set_defaults)(j_compress_ptr);
static void (*p_jpeg_set_quality)(j_compress_ptr, int, boolean);
static void (*p_jpeg_start_compress)(j_compress_ptr, boolean);
static JDIMENSION (*p_jpeg_write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
static void (*p_jpeg_finish_compress)(j_compress_ptr);
static void (*p_jpeg_destroy_compress)(j_compress_ptr);
static boolean (*p_jpeg_resync_to_restart)(j_decompress_ptr, int);

static pthread_once_t jpeg_once = PTHREAD_ONCE_INIT;
static int jpeg_loaded = 0;

#define JRESOLVE(name)                                                   \
    do {                                                                 \
        *(void **)(&p_##name) = dlsym(handle, #name);                    \
        if (p_##name == NULL) return;                                    \
    } while (0)

static void ifj_do_load(void) {
    void *handle = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    JRESOLVE(jpeg_std_error);
    JRESOLVE(jpeg_CreateDecompress);
    JRESOLVE(jpeg_CreateCompress);
    JRESOLVE(jpeg_mem_src);
    JRESOLVE(jpeg_mem_dest);
    JRESOLVE(jpeg_save_markers);
    JRESOLVE(jpeg_read_header);
    JRESOLVE(jpeg_start_decompress);
    JRESOLVE(jpeg_read_scanlines);
    JRESOLVE(jpeg_finish_decompress);
    JRESOLVE(jpeg_destroy_decompress);
    JRESOLVE(jpeg_set_defaults);
    JRESOLVE(jpeg_set_quality);
    JRESOLVE(jpeg_start_compress);
    JRESOLVE(jpeg_write_scanlines);
    JRESOLVE(jpeg_finish_compress);
    JRESOLVE(jpeg_destroy_compress);
    JRESOLVE(jpeg_resync_to_restart);
    jpeg_loaded = 1;
}

/* Errors and warnings both end the fast path: a warning is how libjpeg reports a truncated or
 * corrupt stream (it would otherwise fill the rest with grey). Either marks the JPEG corrupt (the
 * caller fails it: libvips decodes with the same libjpeg), keeping libjpeg's first message.
 * One positional exception: stray bytes between the markers before the first scan
 * (JWRN_EXTRANEOUS_DATA while jpeg_read_header runs, whatever marker follows them, a restart
 * marker too) are skipped and the picture is whole, as every viewer shows it (libvips' fail_on=error
 * accepts it too); the same warning in or after a scan means damaged entropy data and fails. */
struct ifj_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    int corrupt;
    int in_header;           /* jpeg_read_header is running: before the first scan */
    char message[JMSG_LENGTH_MAX];
};

static void ifj_corrupt(j_common_ptr cinfo) {
    struct ifj_error *e = (struct ifj_error *)cinfo->err;
    if (!e->corrupt) (*cinfo->err->format_message)(cinfo, e->message);
    e->corrupt = 1;
    longjmp(e->jump, 1);
}

static void ifj_error_exit(j_common_ptr cinfo) { ifj_corrupt(cinfo); }

static void ifj_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    struct ifj_error *e = (struct ifj_error *)cinfo->err;
    if (e->in_header && cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA) return;
    ifj_corrupt(cinfo);
}

static void ifj_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* libjpeg's error manager with the handlers above: errors and warnings longjmp to jerr->jump. */
static struct jpeg_error_mgr *ifj_error_init(struct ifj_error *jerr) {
    struct jpeg_error_mgr *mgr = p_jpeg_std_error(&jerr->mgr);
    mgr->error_exit = ifj_error_exit;
    mgr->emit_message = ifj_emit_message;
    mgr->output_message = ifj_output_message;
    jerr->corrupt = 0;
    jerr->in_header = 0;
    jerr->message[0] = '\0';
    return mgr;
}

/* jpeg_read_header, up to the first scan, with the header's tolerance (ifj_error). */
static void ifj_read_header(j_decompress_ptr d, struct ifj_error *jerr) {
    jerr->in_header = 1;
    p_jpeg_read_header(d, TRUE);
    jerr->in_header = 0;
}

/* The resolution fields of EXIF's IFD0, as libvips 8.14 reads them (vips_image_resolution_from_exif,
 * through libexif): X and Y as single RATIONALs, the unit a single SHORT (absent: inches). */
struct ifj_exif_res {
    double x, y;
    int have_x, have_y, unit;
    int unknown;             /* a field libvips' reading was not checked for (another type, a zero
                                denominator, a second APP1...): the resolution is not known */
};

/* EXIF orientation from an APP1 marker: 1 when absent or unreadable-but-harmless, 0 when malformed.
 * Fills *r with IFD0's resolution fields. */
static int ifj_exif_orientation(const unsigned char *d, unsigned int len, struct ifj_exif_res *r) {
    if (len < 14 || memcmp(d, "Exif\0\0", 6) != 0) return 1;
    const unsigned char *t = d + 6;
    unsigned int n = len - 6;
    int le = (t[0] == 'I' && t[1] == 'I');
    if (!le && !(t[0] == 'M' && t[1] == 'M')) return 0;
#define U16(p) (le ? (unsigned)((p)[0] | (p)[1] << 8) : (unsigned)((p)[0] << 8 | (p)[1]))
#define U32(p) (le ? ((unsigned)(p)[0] | (unsigned)(p)[1] << 8 | (unsigned)(p)[2] << 16 | (unsigned)(p)[3] << 24) \
                   : ((unsigned)(p)[0] << 24 | (unsigned)(p)[1] << 16 | (unsigned)(p)[2] << 8 | (unsigned)(p)[3]))
    unsigned int ifd = U32(t + 4);
    if (n < 8 || ifd > n - 2) return 0;  /* written so that a hostile offset cannot wrap around */
    unsigned int count = U16(t + ifd);
    int orientation = -1;   /* the first orientation entry's; -1 before it */
    for (unsigned int i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e > (size_t)n - 12 || n < 12) {
            /* Past the entries' end: malformed before the orientation; after it, the resolution is unknown. */
            if (orientation < 0) return 0;
            r->unknown = 1;
            return orientation;
        }
        const unsigned tag = U16(t + e), type = U16(t + e + 2), components = U32(t + e + 4);
        if (tag == 0x0112 && orientation < 0) orientation = (int)U16(t + e + 8);
        if (tag == 0x011A || tag == 0x011B) {
            const unsigned off = U32(t + e + 8);
            if (type == 3) continue;    /* a SHORT: libvips cannot read it as a resolution (measured) */
            if (type != 5 || components != 1 || off > n - 8 || n < 8 || U32(t + off + 4) == 0) { r->unknown = 1; continue; }
            const double v = (double)U32(t + off) / (double)U32(t + off + 4);
            if (tag == 0x011A) { r->x = v; r->have_x = 1; } else { r->y = v; r->have_y = 1; }
        }
        if (tag == 0x0128) {
            if (type != 3 || components != 1) r->unknown = 1;
            else r->unit = (int)U16(t + e + 8);
        }
    }
    return orientation < 0 ? 1 : orientation;
#undef U16
#undef U32
}

/* The resolution libvips 8.14's jpegload gives the image, in pixels per metre as its pngsave writes
 * them (rint(res * 1000), res in pixels per mm): EXIF's when IFD0 has both X and Y and a known unit
 * (1 none: pixels per mm as they are, 2 inch, 3 cm), else JFIF's, else 72 dpi (JFIF's density unit
 * 0 gives the aspect ratio only). 0 when it is not known. */
static void ifj_resolution(const struct jpeg_decompress_struct *d, const struct ifj_exif_res *exif, ifj_result *res) {
    double xres = 72.0 / 25.4, yres = 72.0 / 25.4;
    if (d->saw_JFIF_marker && d->X_density != 1U && d->Y_density != 1U) {
        switch (d->density_unit) {
        case 0: if (d->Y_density > 0) yres = xres * d->X_density / d->Y_density; break;
        case 1: xres = d->X_density / 25.4; yres = d->Y_density / 25.4; break;
        case 2: xres = d->X_density / 10.0; yres = d->Y_density / 10.0; break;
        default: break;
        }
    }
    const int unit = exif->unit;
    if (exif->have_x && exif->have_y && unit >= 1 && unit <= 3) {
        const double div = unit == 2 ? 25.4 : (unit == 3 ? 10.0 : 1.0);
        xres = unit == 1 ? exif->x : exif->x / div;
        yres = unit == 1 ? exif->y : exif->y / div;
    }
    res->x_ppm = res->y_ppm = 0;
    if (exif->unknown || !(xres * 1000 < 2e9) || !(yres * 1000 < 2e9)) return;
    res->x_ppm = (int)rint(xres * 1000);
    res->y_ppm = (int)rint(yres * 1000);
}

int ifj_available(void) {
    pthread_once(&jpeg_once, ifj_do_load);
    return jpeg_loaded;
}

boolean ifj__resync_to_restart(j_decompress_ptr d, int desired) { return p_jpeg_resync_to_restart(d, desired); }

/* vips_thumbnail_calculate_shrink for an upright image, size=down: the one shrink of both axes. */
static double ifj_common_shrink(double w, double h, const ifj_opts *opts) {
    double hs = w / opts->width, vs = h / opts->height;
    double s = opts->crop ? (hs < vs ? hs : vs) : (hs > vs ? hs : vs);
    return s < 1 ? 1 : s;
}

/* vips_thumbnail_find_jpegshrink: leave at least a factor of 2 for the final resize. */
static int ifj_dct_denom(double shrink) {
    if (shrink >= 16) return 8;
    if (shrink >= 8) return 4;
    if (shrink >= 4) return 2;
    return 1;
}

struct ifj_mem { const unsigned char *buf; size_t len; };

static void ifj_setup_mem(j_decompress_ptr d, void *ctx) {
    struct ifj_mem *m = ctx;
    p_jpeg_mem_src(d, m->buf, (unsigned long)m->len);
}

int ifj_thumbnail(const void *buf, size_t len, const ifj_opts *opts, ifj_result *res) {
    memset(res, 0, sizeof *res);
    const unsigned char *b = buf;
    if (len < 4 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF) return IFJ_DECLINED;
    struct ifj_mem m = { b, len };
    return ifj__thumbnail_from(ifj_setup_mem, &m, opts, 0, res);
}

/* The w x h image at `px` (ch 1 or 3 bytes a pixel, rows `stride` pixels apart) box-filtered to fit
 * inside side x side, as RGBA; NULL when memory is short. */
static unsigned char *ifj_small_rgba(const unsigned char *px, int w, int h, int stride, int ch, int side, int *ow, int *oh) {
    int sw = w, sh = h;
    if (w > side || h > side) {
        double scale = (double)(w > h ? w : h) / side;
        sw = (int)floor(w / scale + 0.5);
        sh = (int)floor(h / scale + 0.5);
        if (sw < 1) sw = 1;
        if (sh < 1) sh = 1;
        if (sw > side) sw = side;
        if (sh > side) sh = side;
    }
    unsigned char *out = malloc((size_t)sw * (size_t)sh * 4);
    if (out == NULL) return NULL;
    for (int oy = 0; oy < sh; oy++) {
        int y0 = (int)((long)oy * h / sh), y1 = (int)((long)(oy + 1) * h / sh);
        if (y1 <= y0) y1 = y0 + 1;
        for (int ox = 0; ox < sw; ox++) {
            int x0 = (int)((long)ox * w / sw), x1 = (int)((long)(ox + 1) * w / sw);
            if (x1 <= x0) x1 = x0 + 1;
            long sum[3] = { 0, 0, 0 };
            for (int y = y0; y < y1; y++) {
                const unsigned char *row = px + ((size_t)y * (size_t)stride + (size_t)x0) * (size_t)ch;
                for (int x = x0; x < x1; x++, row += ch) {
                    for (int c = 0; c < 3; c++) sum[c] += row[ch == 3 ? c : 0];
                }
            }
            long n = (long)(y1 - y0) * (x1 - x0);
            unsigned char *o = out + ((size_t)oy * (size_t)sw + (size_t)ox) * 4;
            for (int c = 0; c < 3; c++) o[c] = (unsigned char)((sum[c] + n / 2) / n);
            o[3] = 255;
        }
    }
    *ow = sw;
    *oh = sh;
    return out;
}

int ifj__thumbnail_from(ifj_src_setup setup, void *ctx, const ifj_opts *opts, int streaming, ifj_result *res) {
    memset(res, 0, sizeof *res);
    if (!ifj_available()) return IFJ_DECLINED;

    struct jpeg_decompress_struct d;
    struct ifj_error jerr;
    /* volatile: these change after setjmp and are read after a longjmp. */
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile small = NULL;
    struct ifc_resizer *volatile resizer = NULL;
    unsigned char *outbuf = NULL;
    unsigned long outlen = 0;
    volatile int compressing = 0;
    struct jpeg_compress_struct c;
    d.err = ifj_error_init(&jerr);
    volatile int created = 0;
    /* setjmp before anything that can fail (libjpeg's example.c order). */
    if (setjmp(jerr.jump)) {
        /* After compression started, libjpeg's memory destination owns (and may already have
         * freed and replaced) its buffer: destroying the compressor is all that is safe. */
        if (compressing) p_jpeg_destroy_compress(&c);
        if (created) p_jpeg_destroy_decompress(&d);
        free((void *)pixels);
        free((void *)small);
        ifc_resizer_free((struct ifc_resizer *)resizer);
        memset(res, 0, sizeof *res);
        /* Read through a volatile lvalue: set by the handlers after setjmp. */
        return ((volatile struct ifj_error *)&jerr)->corrupt && !compressing ? IFJ_CORRUPT : IFJ_DECLINED;
    }
    p_jpeg_CreateDecompress(&d, JPEG_LIB_VERSION, sizeof d);
    created = 1;
    setup(&d, ctx);
    p_jpeg_save_markers(&d, JPEG_APP0 + 1, 0xFFFF);  /* EXIF */
    p_jpeg_save_markers(&d, JPEG_APP0 + 2, 0xFFFF);  /* ICC profile */
    ifj_read_header(&d, &jerr);

    int declined = 0, exif_blocks = 0;
    struct ifj_exif_res exif = { 0, 0, 0, 0, 2, 0 };
    for (jpeg_saved_marker_ptr m = d.marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 2) declined = 1;                                   /* colour-managed by vips */
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) exif_blocks++;
        if (m->marker == JPEG_APP0 + 1 && ifj_exif_orientation(m->data, m->data_length, &exif) != 1) declined = 1;
    }
    if (exif_blocks > 1) exif.unknown = 1;   /* which one libvips reads was not checked */
    ifj_resolution(&d, &exif, res);
    if (opts->square_resolution && (res->x_ppm <= 0 || res->x_ppm != res->y_ppm)) declined = 1;
    int ch = d.num_components;
    if (d.arith_code || d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK || (ch != 1 && ch != 3)) declined = 1;
    double w = d.image_width, h = d.image_height;
    res->source_width = (int)w;
    res->source_height = (int)h;
    if ((double)w * h > (double)opts->max_pixels) declined = 1;  /* vips reports the limit */
    if (streaming && d.progressive_mode && (double)w * h > IFJ_STREAM_PROGRESSIVE_MAX_PIXELS) declined = 1;
    if (declined || opts->width <= 0 || opts->height <= 0) {
        p_jpeg_destroy_decompress(&d);
        return IFJ_DECLINED;
    }

    /* Sizes exactly as vips_thumbnail computes them (libvips 8.14 thumbnail.c): the shrink that
     * fits (or, for cover, fills) the box, never below 1; a DCT scale that leaves the filter at least
     * 2x, as libvips' shrink-on-load does (decoding nearer the box leaves too little for the filter:
     * a fine texture aliases); then the shrink again from the decoded size, rounded as vips_resize
     * rounds. So this path and libvips give the same dimensions for the same box. */
    int denom = ifj_dct_denom(ifj_common_shrink(w, h, opts));
    /* libvips' jpegload gives floor(w / denom) (libjpeg decodes ceil: the partial last pixel is
     * dropped); the size follows libvips, the resize below reads every decoded pixel. */
    double lw = floor(w / denom), lh = floor(h / denom);
    if (lw < 1) lw = 1;
    if (lh < 1) lh = 1;
    /* vips_thumbnail passes 1/shrink to vips_resize, whose reduce divides by 1/scale and rounds:
     * the same double operations, so that halves round the same way (1200 / (800/201) = 301.5
     * exactly, but 301.4999... in vips' arithmetic). */
    double scale = 1.0 / ifj_common_shrink(lw, lh, opts);
    int tw = (int)floor(lw / (1.0 / scale) + 0.5), th = (int)floor(lh / (1.0 / scale) + 0.5);
    if (tw < 1) tw = 1;
    if (th < 1) th = 1;
    d.scale_num = 1;
    d.scale_denom = (unsigned)denom;
    d.out_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
    d.dct_method = JDCT_ISLOW;
    p_jpeg_start_decompress(&d);
    int dw = (int)d.output_width, dh = (int)d.output_height, oc = d.output_components;

    /* Cover: resize so the box is filled, then crop the centre. */
    int rw = tw, rh = th, cx = 0, cy = 0, ow = tw, oh = th;
    if (opts->crop) {
        ow = tw < opts->width ? tw : opts->width;
        oh = th < opts->height ? th : opts->height;
        cx = (rw - ow) / 2;
        cy = (rh - oh) / 2;
    }
    if (rw > dw) rw = dw;
    if (rh > dh) rh = dh;
    /* Decode row by row: straight into the image when the DCT scale gave the final size, else
     * each row into the resizer as it comes. */
    int resizing = !(rw == dw && rh == dh);
    if (resizing) {
        resizer = ifc_resizer_new(dw, dh, oc, rw, rh);
        pixels = malloc((size_t)dw * (size_t)oc);   /* one row */
        if (resizer == NULL || pixels == NULL) longjmp(jerr.jump, 1);
    } else {
        if (streaming && (double)dw * dh > IFJ_STREAM_WHOLE_MAX_PIXELS) longjmp(jerr.jump, 1);
        pixels = malloc((size_t)dw * (size_t)dh * (size_t)oc);
        if (pixels == NULL) longjmp(jerr.jump, 1);
    }
    while (d.output_scanline < d.output_height) {
        int y = (int)d.output_scanline;
        JSAMPROW row = (JSAMPROW)pixels + (resizing ? 0 : (size_t)y * (size_t)dw * (size_t)oc);
        if (p_jpeg_read_scanlines(&d, &row, 1) != 1) longjmp(jerr.jump, 1);
        if (resizing) ifc_resizer_row((struct ifc_resizer *)resizer, y, row);
    }
    p_jpeg_finish_decompress(&d);
    const unsigned char *final = resizing ? ifc_resizer_pixels((struct ifc_resizer *)resizer) : (const unsigned char *)pixels;
    if (opts->small_side > 0) {
        /* Placeholders: the thumbnail's own pixels, before they are encoded. */
        small = ifj_small_rgba(final + ((size_t)cy * (size_t)rw + (size_t)cx) * (size_t)oc, ow, oh, rw, oc,
                               opts->small_side, &res->small_width, &res->small_height);
        if (small == NULL) longjmp(jerr.jump, 1);
    }
    if (opts->pixels) {
        /* The (cropped) pixels themselves, for placeholders or another encoder. */
        unsigned char *copy = malloc((size_t)ow * (size_t)oh * (size_t)oc);
        if (copy == NULL) longjmp(jerr.jump, 1);
        for (int y = 0; y < oh; y++) {
            memcpy(copy + (size_t)y * (size_t)ow * (size_t)oc,
                   final + ((size_t)(y + cy) * (size_t)rw + (size_t)cx) * (size_t)oc, (size_t)ow * (size_t)oc);
        }
        p_jpeg_destroy_decompress(&d);
        free((void *)pixels);
        ifc_resizer_free((struct ifc_resizer *)resizer);
        res->data = copy;
        res->length = (size_t)ow * (size_t)oh * (size_t)oc;
        res->width = ow;
        res->height = oh;
        res->small = (void *)small;
        return IFJ_OK;
    }
    c.err = ifj_error_init(&jerr);
    p_jpeg_CreateCompress(&c, JPEG_LIB_VERSION, sizeof c);
    compressing = 1;
    p_jpeg_mem_dest(&c, &outbuf, &outlen);
    c.image_width = (JDIMENSION)ow;
    c.image_height = (JDIMENSION)oh;
    c.input_components = oc;
    c.in_color_space = oc == 1 ? JCS_GRAYSCALE : JCS_RGB;
    p_jpeg_set_defaults(&c);
    int quality = opts->quality > 0 ? opts->quality : 75;
    p_jpeg_set_quality(&c, quality, TRUE);
    if (quality >= 90) {
        /* As libvips' jpegsave: no chroma subsampling at high quality (4:4:4). */
        for (int i = 0; i < c.num_components; i++) c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    }
    p_jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = (JSAMPROW)(final + ((size_t)(c.next_scanline + (unsigned)cy) * (size_t)rw + (size_t)cx) * (size_t)oc);
        p_jpeg_write_scanlines(&c, &row, 1);
    }
    p_jpeg_finish_compress(&c);
    p_jpeg_destroy_compress(&c);
    p_jpeg_destroy_decompress(&d);
    free((void *)pixels);
    ifc_resizer_free((struct ifc_resizer *)resizer);
    res->data = outbuf;
    res->length = (size_t)outlen;
    res->width = ow;
    res->height = oh;
    res->small = (void *)small;
    return IFJ_OK;
}

int ifj_validate(const void *buf, size_t len, double max_pixels, int *width, int *height, char *msg, size_t msglen) {
    const unsigned char *b = buf;
    if (msg != NULL && msglen > 0) msg[0] = '\0';
    if (len < 4 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF) return IFJ_DECLINED;
    if (!ifj_available()) return IFJ_DECLINED;
    struct jpeg_decompress_struct d;
    struct ifj_error jerr;
    unsigned char *volatile row = NULL;
    volatile int created = 0;
    d.err = ifj_error_init(&jerr);
    if (setjmp(jerr.jump)) {
        if (created) p_jpeg_destroy_decompress(&d);
        free((void *)row);
        volatile struct ifj_error *e = &jerr;
        if (!e->corrupt) return IFJ_DECLINED;
        if (msg != NULL && msglen > 0) snprintf(msg, msglen, "%s", (const char *)e->message);
        return IFJ_CORRUPT;
    }
    p_jpeg_CreateDecompress(&d, JPEG_LIB_VERSION, sizeof d);
    created = 1;
    p_jpeg_mem_src(&d, b, (unsigned long)len);
    ifj_read_header(&d, &jerr);
    if ((double)d.image_width * (double)d.image_height > max_pixels) longjmp(jerr.jump, 1);  /* declined */
    /* Every coefficient is still entropy-decoded at 1/8 scale, so corruption and truncation show
     * up as they would in a full decode, at a fraction of the cost. */
    d.scale_num = 1;
    d.scale_denom = 8;
    p_jpeg_start_decompress(&d);
    row = malloc((size_t)d.output_width * (size_t)d.output_components);
    if (row == NULL) longjmp(jerr.jump, 1);
    while (d.output_scanline < d.output_height) {
        JSAMPROW r = (JSAMPROW)row;
        if (p_jpeg_read_scanlines(&d, &r, 1) != 1) longjmp(jerr.jump, 1);
    }
    p_jpeg_finish_decompress(&d);   /* up to EOI: a missing end is a warning, so a decline */
    *width = (int)d.image_width;
    *height = (int)d.image_height;
    p_jpeg_destroy_decompress(&d);
    free((void *)row);
    return IFJ_OK;
}

void ifj_free(void *p) { free(p); }
