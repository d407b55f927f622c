/* sha256.c: SHA-256 by libcrypto, dlopen'ed on first use (see ccrypto.h). */
#include "ccrypto.h"
#include <dlfcn.h>
#include <pthread.h>

/* OpenSSL's SHA256_CTX (openssl/sha.h, the same in 1.1 and 3.x): h[8], Nl, Nh, data[16], num,
 * md_len, all 32-bit. The header is not needed to build: the layout is written out here. */
typedef struct {
    unsigned int h[8];
    unsigned int nl, nh;
    unsigned int data[16];
    unsigned int num, md_len;
} openssl_sha256_ctx;
_Static_assert(sizeof(openssl_sha256_ctx) <= sizeof(icr_sha256_ctx), "icr_sha256_ctx holds SHA256_CTX");

static int (*p_init)(void *);
static int (*p_update)(void *, const void *, size_t);
static int (*p_final)(unsigned char *, void *);
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    p_init = (int (*)(void *))dlsym(handle, "SHA256_Init");
    p_update = (int (*)(void *, const void *, size_t))dlsym(handle, "SHA256_Update");
    p_final = (int (*)(unsigned char *, void *))dlsym(handle, "SHA256_Final");
    loaded = p_init && p_update && p_final;
}

int icr_available(void) {
    pthread_once(&once, load);
    return loaded;
}

int icr_sha256_init(icr_sha256_ctx *ctx) {
    return icr_available() && p_init(ctx) == 1;
}

int icr_sha256_update(icr_sha256_ctx *ctx, const void *bytes, size_t length) {
    return icr_available() && p_update(ctx, bytes, length) == 1;
}

int icr_sha256_final(icr_sha256_ctx *ctx, unsigned char out[32]) {
    return icr_available() && p_final(out, ctx) == 1;
}
