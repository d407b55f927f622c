/* jpeg_stream.c: the JPEG thumbnail of jpeg_fast.c, decoded while the body downloads.
 *
 * The producer (libcurl's write callback, via ccurl's tap) appends pieces; a decoder thread runs the
 * very same ifj__thumbnail_from with a libjpeg source that blocks until the next piece arrives. The
 * pieces are queued as separate blocks and freed once read, so libjpeg never points into memory that
 * moves. The result is used only when the decoder read exactly the bytes of the finished body, so it
 * is identical to ifj_thumbnail on the whole buffer; any doubt declines and the caller decodes anew.
 *
 * Lifetime: two references (the owner's, the decoder thread's); the last release frees. The thread
 * always ends: the producer's end (ccurl calls it exactly once per transfer) wakes it.
 */
#define _GNU_SOURCE
#include "jpeg_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Appends fill the last queued piece up to its capacity (few allocations, below malloc's mmap
 * threshold); the decoder takes whole pieces off the queue, so it never reads one being filled. */
typedef struct piece {
    struct piece *next;
    size_t len, cap;
    unsigned char data[];
} piece;

#define PIECE_CAP (64 * 1024)

enum { S_IDLE, S_DECODING, S_DECLINED };

struct ifj_stream {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int refs;
    ifj_opts opts;
    int start_delay_ms;
    /* protected by lock */
    piece *head, *tail;
    size_t appended;
    unsigned char lead[3];   /* the first bytes appended: ifj_thumbnail's FF D8 FF test, the same here */
    int state;
    int ended, complete;
    int done, status;
    int reading;        /* the decoder is past its start delay: wake it for each piece */
    ifj_result result;
};

struct ifj_stream_src {
    struct jpeg_source_mgr pub;
    ifj_stream *s;
    piece *current;   /* the piece libjpeg is reading, freed when it asks for the next */
};

static void free_pieces(piece *p) {
    while (p != NULL) {
        piece *next = p->next;
        free(p);
        p = next;
    }
}

static void stream_unref(ifj_stream *s) {
    pthread_mutex_lock(&s->lock);
    int left = --s->refs;
    pthread_mutex_unlock(&s->lock);
    if (left > 0) return;
    free_pieces(s->head);
    ifj_free(s->result.data);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- the libjpeg source (decoder thread) ---- */

static void src_init(j_decompress_ptr d) { (void)d; }
static void src_term(j_decompress_ptr d) { (void)d; }

static boolean src_fill(j_decompress_ptr d) {
    struct ifj_stream_src *src = (struct ifj_stream_src *)d->src;
    ifj_stream *s = src->s;
    free(src->current);
    src->current = NULL;
    pthread_mutex_lock(&s->lock);
    while (s->head == NULL && !s->ended) pthread_cond_wait(&s->cond, &s->lock);
    piece *p = NULL;
    if (s->head != NULL && !(s->ended && !s->complete)) {
        p = s->head;
        s->head = p->next;
        if (s->head == NULL) s->tail = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    if (p == NULL) {
        /* The end of the data (or a failed transfer): as jpeg_mem_src, a warning and a fake EOI.
         * The fast path's message handler ends the decode on any warning. */
        static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };
        src->pub.next_input_byte = eoi;
        src->pub.bytes_in_buffer = 2;
        (*d->err->emit_message)((j_common_ptr)d, -1);
        return TRUE;
    }
    src->current = p;
    src->pub.next_input_byte = p->data;
    src->pub.bytes_in_buffer = p->len;
    return TRUE;
}

static void src_skip(j_decompress_ptr d, long n) {
    struct jpeg_source_mgr *src = d->src;
    if (n <= 0) return;
    while (n > (long)src->bytes_in_buffer) {
        n -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(d);
    }
    src->next_input_byte += (size_t)n;
    src->bytes_in_buffer -= (size_t)n;
}

static void src_setup(j_decompress_ptr d, void *ctx) {
    struct ifj_stream_src *src = ctx;
    src->pub.init_source = src_init;
    src->pub.fill_input_buffer = src_fill;
    src->pub.skip_input_data = src_skip;
    src->pub.resync_to_restart = ifj__resync_to_restart;
    src->pub.term_source = src_term;
    src->pub.next_input_byte = NULL;
    src->pub.bytes_in_buffer = 0;
    d->src = &src->pub;
}

/* Decoders past their start delay, process-wide (see IFJ_STREAM_DECODERS_PER_CORE). */
static atomic_int live_decoders;

static int take_decoder_slot(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int limit = IFJ_STREAM_DECODERS_PER_CORE * (int)(cores > 0 ? cores : 1);
    if (atomic_fetch_add(&live_decoders, 1) < limit) return 1;
    atomic_fetch_sub(&live_decoders, 1);
    return 0;
}

static struct timespec deadline_after(int ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec += 1;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static void *decoder_main(void *arg) {
    ifj_stream *s = arg;
    struct ifj_stream_src src = { .s = s, .current = NULL };
    ifj_result res;
    memset(&res, 0, sizeof res);
    /* Only a slow download is worth overlapping: one that ends within start_delay_ms of its first
     * byte is left to the pool (no extra thread competing for the cores, no extra memory). */
    struct timespec deadline = deadline_after(s->start_delay_ms);
    pthread_mutex_lock(&s->lock);
    int rc = s->start_delay_ms > 0 ? 0 : ETIMEDOUT;
    while (!s->ended && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&s->cond, &s->lock, &deadline);
    int fast = s->start_delay_ms > 0 && s->ended;
    int slot = !fast && take_decoder_slot();
    s->reading = slot;
    pthread_mutex_unlock(&s->lock);
    int status = slot ? ifj__thumbnail_from(src_setup, &src, &s->opts, 1, &res) : IFJ_DECLINED;
    if (slot) atomic_fetch_sub(&live_decoders, 1);
    free(src.current);
    pthread_mutex_lock(&s->lock);
    s->status = status;
    s->result = res;
    s->done = 1;
    free_pieces(s->head);   /* later pieces are dropped by append */
    s->head = s->tail = NULL;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    stream_unref(s);
    return NULL;
}

/* ---- public API ---- */

ifj_stream *ifj_stream_new(const ifj_opts *opts, int start_delay_ms) {
    if (opts == NULL || !ifj_available()) return NULL;
    ifj_stream *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return NULL;
    }
    pthread_condattr_t attr;
    int ok = pthread_condattr_init(&attr) == 0;
    if (ok) {
        ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&s->cond, &attr) == 0;
        pthread_condattr_destroy(&attr);
    }
    if (!ok) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    s->refs = 1;
    s->opts = *opts;
    s->start_delay_ms = start_delay_ms > 0 ? start_delay_ms : 0;
    s->state = S_IDLE;
    return s;
}

void ifj_stream_append(void *stream, const void *data, size_t len) {
    ifj_stream *s = stream;
    if (s == NULL || len == 0) return;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; s->appended + i < sizeof s->lead && i < len; i++) s->lead[s->appended + i] = ((const unsigned char *)data)[i];
    s->appended += len;
    if (s->state == S_IDLE) {
        s->state = S_DECLINED;
        if (((const unsigned char *)data)[0] == 0xFF) {   /* a JPEG starts FF D8 FF: nothing else spawns a thread */
            pthread_t t;
            pthread_attr_t attr;
            s->refs++;
            if (pthread_attr_init(&attr) == 0) {
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                if (pthread_create(&t, &attr, decoder_main, s) == 0) s->state = S_DECODING;
                pthread_attr_destroy(&attr);
            }
            if (s->state != S_DECODING) s->refs--;
        }
    }
    if (s->state == S_DECODING && !s->done && !s->ended) {
        piece *t = s->tail;
        if (t != NULL && t->cap - t->len >= len) {
            memcpy(t->data + t->len, data, len);
            t->len += len;
        } else {
            size_t cap = len > PIECE_CAP ? len : PIECE_CAP;
            piece *p = cap <= SIZE_MAX - sizeof(piece) ? malloc(sizeof *p + cap) : NULL;
            if (p == NULL) {
                s->ended = 1;          /* out of memory: the decode cannot be trusted; stop it */
                s->complete = 0;
            } else {
                p->next = NULL;
                p->len = len;
                p->cap = cap;
                memcpy(p->data, data, len);
                if (t != NULL) t->next = p; else s->head = p;
                s->tail = p;
            }
        }
        /* Broadcast: the decoder, not only whoever else waits (result). Not during the start
         * delay, which waits for the end or its deadline only. */
        if (s->reading || s->ended) pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
}

void ifj_stream_end(void *stream, int complete) {
    ifj_stream *s = stream;
    if (s == NULL) return;
    pthread_mutex_lock(&s->lock);
    if (!s->ended) {
        s->ended = 1;
        s->complete = complete != 0;
    }
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

int ifj_stream_result(ifj_stream *s, size_t total_len, ifj_result *res) {
    memset(res, 0, sizeof *res);
    if (s == NULL) return IFJ_DECLINED;
    pthread_mutex_lock(&s->lock);
    if (s->state != S_DECODING) {
        pthread_mutex_unlock(&s->lock);
        return IFJ_DECLINED;
    }
    while (!s->done) pthread_cond_wait(&s->cond, &s->lock);
    /* What the whole-buffer path declines (no marker right after SOI: stray bytes there), so does
     * this one: the same bytes give the same answer either way (make fuzz, target jpeg). */
    int lead = s->appended >= 4 && s->lead[0] == 0xFF && s->lead[1] == 0xD8 && s->lead[2] == 0xFF;
    int ok = lead && s->status == IFJ_OK && s->ended && s->complete && s->appended == total_len && s->result.data != NULL;
    if (ok) {
        *res = s->result;
        memset(&s->result, 0, sizeof s->result);
    }
    pthread_mutex_unlock(&s->lock);
    return ok ? IFJ_OK : IFJ_DECLINED;
}

void ifj_stream_release(ifj_stream *s) {
    if (s == NULL) return;
    ifj_stream_end(s, 0);   /* an owner that leaves early stops the decoder */
    stream_unref(s);
}
