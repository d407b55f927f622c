/* vips_errors.c: the public libvips entry points, each reporting its own failure.
 *
 * libvips keeps ONE error buffer for the whole process: when two images fail at once on two
 * threads, each reads both messages, or none ("thumbnail failed"), or the other's. So every
 * operation runs under a shared lock, and one that fails runs again alone (the lock held
 * exclusively, the buffer cleared before and after) to read its own message. Failures are rare and
 * a failing image is usually refused early (its header), so the second run costs little; the
 * verdict is that of the second run, which sees the same bytes.
 * The same lock, held exclusively, keeps every operation out while a libvips module is opened
 * (ifv__need_modules): each entry point first opens the modules its source and savers need.
 */
#define _GNU_SOURCE
#include "vips_internal.h"

#include <pthread.h>

static pthread_rwlock_t errors_lock;
static pthread_once_t errors_once = PTHREAD_ONCE_INIT;

static void errors_init(void) {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    /* A failing operation must not wait behind an endless stream of successful ones. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&errors_lock, &attr);
    pthread_rwlockattr_destroy(&attr);
}

static void shared_begin(void) {
    pthread_once(&errors_once, errors_init);
    pthread_rwlock_rdlock(&errors_lock);
}

static void exclusive_begin(void) {
    pthread_rwlock_wrlock(&errors_lock);
    ifv__error_clear();
}

static void end(int exclusive) {
    if (exclusive) ifv__error_clear();
    pthread_rwlock_unlock(&errors_lock);
}

void ifv__need_modules(int mask) {
    if (ifv__modules_missing(mask) == 0 || ifv_load(NULL, 0) != 0) return;
    pthread_once(&errors_once, errors_init);
    exclusive_begin();
    if (ifv__modules_open(mask)) ifv__block_untrusted();
    end(1);
}

/* The modules a source and the savers of opts need (ifv__need_modules). */
static void modules_for(const void *buf, size_t len, const ifv_thumb_opts *opts) {
    int mask = ifv__modules_for_bytes(buf, len);
    if (opts != NULL) {
        mask |= ifv__modules_for_suffix(opts->save_suffix);
        const ifv_thumb_extras *x = opts->extras;
        for (int i = 0; x != NULL && x->candidates != NULL && i < x->n_candidates; i++) {
            mask |= ifv__modules_for_suffix(x->candidates[i]);
        }
    }
    ifv__need_modules(mask);
}

/* Returns `call` (0 on success) run under the shared lock; when it fails, run again alone. */
#define RUN_WITH_OWN_ERROR(call)  \
    do {                          \
        shared_begin();           \
        int rc_ = (call);         \
        end(0);                   \
        if (rc_ == 0) return 0;   \
        exclusive_begin();        \
        rc_ = (call);             \
        end(1);                   \
        return rc_;               \
    } while (0)

int ifv_read_header(const void *buf, size_t len, ifv_header *out, char *err, size_t errlen) {
    modules_for(buf, len, NULL);
    RUN_WITH_OWN_ERROR(ifv__read_header_once(buf, len, out, err, errlen));
}

int ifv_validate(const void *buf, size_t len, char *err, size_t errlen) {
    modules_for(buf, len, NULL);
    RUN_WITH_OWN_ERROR(ifv__validate_once(buf, len, err, errlen));
}

int ifv_thumbnail(const void *buf, size_t len, const ifv_thumb_opts *opts,
                  void **out, size_t *out_len, int *out_w, int *out_h, char *err, size_t errlen) {
    modules_for(buf, len, opts);
    RUN_WITH_OWN_ERROR(ifv__thumbnail_once(buf, len, opts, out, out_len, out_w, out_h, err, errlen));
}

int ifv_rgba_pixels(const void *buf, size_t len, int side, void **out, int *out_w, int *out_h, char *err, size_t errlen) {
    if (ifv_load(err, errlen) != 0) return -1;   /* vips_outputs.c's operation needs it loaded */
    modules_for(buf, len, NULL);
    RUN_WITH_OWN_ERROR(ifv__rgba_pixels_once(buf, len, side, out, out_w, out_h, err, errlen));
}

int ifv_save_pixels(const void *pixels, int width, int height, int bands, const char *suffix, int quality,
                    void **out, size_t *out_len, char *err, size_t errlen) {
    if (ifv_load(err, errlen) != 0) return -1;   /* vips_outputs.c's operation needs it loaded */
    ifv__need_modules(ifv__modules_for_suffix(suffix));   /* AVIF: libvips' heif module */
    RUN_WITH_OWN_ERROR(ifv__save_pixels_once(pixels, width, height, bands, suffix, quality, out, out_len, err, errlen));
}

int ifv_can_save(const char *suffix) {
    ifv__need_modules(ifv__modules_for_suffix(suffix));
    shared_begin();   /* it clears the buffer: never while another failure reads its own */
    int rc = ifv__can_save_once(suffix);
    end(0);
    return rc;
}
