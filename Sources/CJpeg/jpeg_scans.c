/* jpeg_scans.c: watches a progressive JPEG's bytes as they arrive and says where the first scan
 * boundary is after which a thumbnail of the given scale is served (ifj_scans_feed's stop rule).
 *
 * A byte-at-a-time state machine with fixed state (no allocation after ifj_scans_new, no libjpeg):
 * SOI, then segments (a marker and its length), then entropy-coded data after each SOS, which ends
 * at the next marker that is not RSTn or a stuffed 0xFF00. Only SOF2 (progressive, Huffman) is
 * watched; anything else, or anything out of the rules of ITU T.81 G.1.1.1 (a scan band that is not
 * DC-only or one component's AC, a refinement that does not refine what is known by exactly one bit,
 * a band that overlaps one already begun, too many scans, a segment shorter than its length field),
 * makes the watcher give up for good: the body is then read whole, as without it.
 */
#include "cjpeg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMPONENTS 4
#define MAX_SCANS 256
#define UNKNOWN 255   /* no bit of the coefficient known yet */

enum {
    W_START,          /* expecting FF D8 */
    W_START2,
    W_MARKER,         /* expecting FF */
    W_MARKER_CODE,    /* after FF: the marker's code (FF fill bytes skipped) */
    W_LENGTH1, W_LENGTH2,
    W_SEGMENT,        /* inside a segment's payload */
    W_ENTROPY,        /* inside a scan's entropy-coded data */
    W_ENTROPY_FF,     /* after an FF in entropy-coded data */
    W_DONE            /* stopped, gave up or saw EOI: nothing more is looked at */
};

struct ifj_scans {
    int box_width, box_height, cover;
    int state;
    int status;                  /* IFJ_SCANS_WATCHING, _STOP, _WHOLE */
    unsigned long long offset;   /* bytes fed so far */
    unsigned long long marker_at;/* offset of the FF that began the current marker */
    unsigned long long boundary; /* _STOP: the scans before this offset serve the thumbnail */
    int marker;                  /* the current segment's marker code */
    unsigned length, read;       /* the current segment's payload length (without the length field) and bytes read */
    unsigned char head[16];      /* the first bytes of a SOF or SOS payload */
    int progressive;             /* a SOF2 was seen */
    int frame_seen;
    int width, height;
    int components;
    int ids[MAX_COMPONENTS];
    int scans;
    int in_scan;                 /* an SOS header was read: its data runs until the next marker */
    /* the SOS being read: its components (indices into ids) and band */
    int scan_count, scan_comp[MAX_COMPONENTS], ss, se, ah, al;
    unsigned char known[MAX_COMPONENTS][64];   /* lowest bit known of each coefficient (zigzag index), UNKNOWN = none */
    unsigned char needed[64];                  /* 1: the stop rule needs this zigzag index */
};

/* The natural (row-major) position of each zigzag index (ITU T.81 figure A.6). */
static const unsigned char natural_of_zigzag[64] = {
     0,  1,  8, 16,  9,  2,  3, 10, 17, 24, 32, 25, 18, 11,  4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,  6,  7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

ifj_scans *ifj_scans_new(int box_width, int box_height, int cover) {
    ifj_scans *w = calloc(1, sizeof *w);
    if (w == NULL) return NULL;
    w->box_width = box_width > 0 ? box_width : 1;
    w->box_height = box_height > 0 ? box_height : 1;
    w->cover = cover;
    memset(w->known, UNKNOWN, sizeof w->known);
    return w;
}

void ifj_scans_free(ifj_scans *w) { free(w); }

static void give_up(ifj_scans *w) {
    w->status = IFJ_SCANS_WHOLE;
    w->state = W_DONE;
}

/* Which coefficients the thumbnail needs: every AC one with max(u, v) <= floor(8 x scale) (at
 * least 1), where scale is the thumbnail's size over the source's; 0 when it needs them all (the
 * rule cannot stop before the last scan). */
static int set_needed(ifj_scans *w) {
    double sx = (double)w->box_width / w->width, sy = (double)w->box_height / w->height;
    double scale = w->cover ? (sx > sy ? sx : sy) : (sx < sy ? sx : sy);
    if (scale > 1) scale = 1;
    int n = (int)(8 * scale);
    if (n < 1) n = 1;
    if (n >= 7) return 0;
    for (int k = 0; k < 64; k++) {
        int u = natural_of_zigzag[k] % 8, v = natural_of_zigzag[k] / 8;
        w->needed[k] = (u > v ? u : v) <= n;
    }
    return 1;
}

/* The frame header: its size and components (the payload's first 1 + 2 + 2 + 1 + 3n bytes). */
static void read_frame(ifj_scans *w) {
    const unsigned char *p = w->head;
    if (w->frame_seen || w->length < 6) { give_up(w); return; }
    w->frame_seen = 1;
    w->height = (p[1] << 8) | p[2];
    w->width = (p[3] << 8) | p[4];
    w->components = p[5];
    if (p[0] != 8 || w->width == 0 || w->height == 0 || w->components < 1 || w->components > MAX_COMPONENTS ||
        w->length < 6u + 3u * (unsigned)w->components) { give_up(w); return; }
    for (int i = 0; i < w->components; i++) w->ids[i] = p[6 + 3 * i];
    if (!set_needed(w)) give_up(w);
}

/* A scan header: its components and band, checked against G.1.1.1 (read whole otherwise). */
static void read_scan_header(ifj_scans *w) {
    const unsigned char *p = w->head;
    if (!w->frame_seen || !w->progressive || w->length < 1) { give_up(w); return; }
    int n = p[0];
    if (n < 1 || n > w->components || w->length != 4u + 2u * (unsigned)n) { give_up(w); return; }
    w->scan_count = n;
    for (int i = 0; i < n; i++) {
        int index = -1;
        for (int c = 0; c < w->components; c++) if (w->ids[c] == p[1 + 2 * i]) index = c;
        for (int j = 0; j < i; j++) if (w->scan_comp[j] == index) index = -1;   /* twice in one scan */
        if (index < 0) { give_up(w); return; }
        w->scan_comp[i] = index;
    }
    const unsigned char *band = p + 1 + 2 * n;
    w->ss = band[0];
    w->se = band[1];
    w->ah = band[2] >> 4;
    w->al = band[2] & 15;
    if (w->ss > w->se || w->se > 63 || (w->ss == 0 && w->se != 0) || (w->ss > 0 && n != 1) || w->al > 13 ||
        (w->ah != 0 && w->ah != w->al + 1)) { give_up(w); return; }
    /* Every coefficient of the band must be in the same state: unknown for a first scan, known down
     * to exactly Ah for a refinement (an overlap or a refinement out of order is not followed). */
    for (int i = 0; i < n; i++) {
        for (int k = w->ss; k <= w->se; k++) {
            int known = w->known[w->scan_comp[i]][k];
            if (w->ah == 0 ? known != UNKNOWN : known != w->ah) { give_up(w); return; }
        }
    }
    if (++w->scans > MAX_SCANS) { give_up(w); return; }
    w->in_scan = 1;
}

/* Whether every component has its DC at Al <= 1 and every needed AC coefficient at Al <= 2. */
static int serves(const ifj_scans *w) {
    for (int c = 0; c < w->components; c++) {
        if (w->known[c][0] > 1) return 0;   /* UNKNOWN is > 1 too */
        for (int k = 1; k < 64; k++) if (w->needed[k] && w->known[c][k] > 2) return 0;
    }
    return 1;
}

/* The scan whose data just ended (at the marker at `marker_at`) is whole: its bits are known. */
static void end_scan(ifj_scans *w, int next_marker) {
    w->in_scan = 0;
    for (int i = 0; i < w->scan_count; i++)
        for (int k = w->ss; k <= w->se; k++) w->known[w->scan_comp[i]][k] = (unsigned char)w->al;
    /* The last scan (EOI next) gives the whole file anyway: read whole. */
    if (next_marker != 0xD9 && serves(w)) {
        w->status = IFJ_SCANS_STOP;
        w->boundary = w->marker_at;
        w->state = W_DONE;
    }
}

/* A marker code after FF, outside entropy-coded data. */
static void begin_marker(ifj_scans *w, int code) {
    if (code == 0xD9) { give_up(w); return; }   /* EOI: whole */
    if (code == 0x01 || (code >= 0xD0 && code <= 0xD8)) { give_up(w); return; }   /* TEM, RSTn, SOI here: not followed */
    if (code == 0xC2) w->progressive = 1;
    else if ((code >= 0xC0 && code <= 0xCF) && code != 0xC4 && code != 0xC8 && code != 0xCC) { give_up(w); return; }   /* another SOF */
    w->marker = code;
    w->state = W_LENGTH1;
}

static void feed_byte(ifj_scans *w, unsigned char b) {
    switch (w->state) {
    case W_START:
        if (b != 0xFF) give_up(w); else w->state = W_START2;
        break;
    case W_START2:
        if (b != 0xD8) give_up(w); else w->state = W_MARKER;
        break;
    case W_MARKER:
        if (b != 0xFF) { give_up(w); break; }
        w->marker_at = w->offset;
        w->state = W_MARKER_CODE;
        break;
    case W_MARKER_CODE:
        if (b == 0xFF) break;   /* fill */
        begin_marker(w, b);
        break;
    case W_LENGTH1:
        w->length = (unsigned)b << 8;
        w->state = W_LENGTH2;
        break;
    case W_LENGTH2:
        w->length |= b;
        if (w->length < 2) { give_up(w); break; }
        w->length -= 2;
        w->read = 0;
        w->state = W_SEGMENT;
        if (w->length == 0) goto segment_done;
        break;
    case W_SEGMENT:
        if (w->read < sizeof w->head) w->head[w->read] = b;
        if (++w->read < w->length) break;
    segment_done:
        if (w->marker == 0xC2) {
            read_frame(w);
        } else if (w->marker == 0xDA) {
            if (w->length > sizeof w->head) { give_up(w); break; }
            read_scan_header(w);
        }
        if (w->state == W_DONE) break;
        w->state = w->marker == 0xDA ? W_ENTROPY : W_MARKER;
        break;
    case W_ENTROPY:
        if (b == 0xFF) {
            w->marker_at = w->offset;
            w->state = W_ENTROPY_FF;
        }
        break;
    case W_ENTROPY_FF:
        if (b == 0x00 || (b >= 0xD0 && b <= 0xD7)) { w->state = W_ENTROPY; break; }   /* stuffing, RSTn */
        if (b == 0xFF) { w->marker_at = w->offset; break; }   /* fill before a marker */
        end_scan(w, b);
        if (w->state == W_DONE) break;
        begin_marker(w, b);
        break;
    default:
        break;
    }
    w->offset++;
}

int ifj_scans_feed(void *watcher, const void *data, size_t len) {
    ifj_scans *w = watcher;
    const unsigned char *p = data;
    for (size_t i = 0; i < len && w->state != W_DONE; i++) feed_byte(w, p[i]);
    return w->status;
}

int ifj_scans_status(const ifj_scans *w) { return w->status; }

unsigned long long ifj_scans_boundary(const ifj_scans *w) { return w->status == IFJ_SCANS_STOP ? w->boundary : 0; }

int ifj_scans_count(const ifj_scans *w) { return w->scans; }
