/* ccrypto.h: SHA-256 of large inputs by libcrypto (OpenSSL 3), which uses the CPU's SHA extensions
 * or AVX2 where there are some: ~15x fewer instructions a byte than the Swift SHA256 of ImageFetch,
 * which hashes what is small (keys, names) without loading anything.
 *
 * libcrypto is NOT linked: icr_available() resolves libcrypto.so.3 with dlopen on first use (once,
 * pthread_once), so a cache hit never loads it. Every function is safe to call from several threads
 * at once; a context belongs to its caller, who may copy it (a plain value: no pointer inside, no
 * allocation, nothing to free) but never use one context from two threads at once.
 */
#ifndef CCRYPTO_H
#define CCRYPTO_H
#include <stddef.h>

/* Room for OpenSSL's SHA256_CTX (112 bytes in 1.1 and 3.x; the shim checks the size it was built
 * for), aligned as it is. */
typedef struct {
    unsigned long long opaque[16];
} icr_sha256_ctx;

/* 1 when libcrypto.so.3 could be loaded and has SHA256_Init, SHA256_Update and SHA256_Final. */
int icr_available(void);
/* Each returns 1 on success, 0 when libcrypto is missing or failed (the caller hashes by itself). */
int icr_sha256_init(icr_sha256_ctx *ctx);
int icr_sha256_update(icr_sha256_ctx *ctx, const void *bytes, size_t length);
/* Writes the 32-byte digest to out. */
int icr_sha256_final(icr_sha256_ctx *ctx, unsigned char out[32]);

#endif
