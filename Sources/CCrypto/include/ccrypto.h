/* ccrypto.h: SHA-256 by libcrypto (OpenSSL 3), linked statically: its SHA256_Init/Update/Final and
 * the code under them (sha256-x86_64: SHA extensions, AVX2, AVX or SSSE3, whichever the CPU has, as
 * OPENSSL_cpuid_setup finds at start-up), five members of libcrypto.a and ~30 KB of the binary (SHA-512
 * below adds two: sha512 and sha512-x86_64).
 * Statically, so nothing is loaded at run time: dlopen'ing libcrypto.so.3 cost ~3.3 M instructions of
 * symbol binding (a cold thumbnail from a file takes ~120 M), and a cache hit loads no library either.
 *
 * Every function is safe to call from several threads at once; a context belongs to its caller, who
 * may copy it (a plain value: no pointer inside, no allocation, nothing to free) but never use one
 * context from two threads at once.
 */
#ifndef CCRYPTO_H
#define CCRYPTO_H
#include <stddef.h>

/* Room for OpenSSL's SHA256_CTX (112 bytes; the shim checks it at build time), aligned as it is. */
typedef struct {
    unsigned long long opaque[16];
} icr_sha256_ctx;

void icr_sha256_init(icr_sha256_ctx *ctx);
void icr_sha256_update(icr_sha256_ctx *ctx, const void *bytes, size_t length);
/* Writes the 32-byte digest to out. */
void icr_sha256_final(icr_sha256_ctx *ctx, unsigned char out[32]);

/* SHA-512 the same way (one more member of the archive, sha512 and its x86_64 code): only for
 * checking an HTTP response's RFC 9530 digest (`Repr-Digest: sha-512=...`). Room for SHA512_CTX
 * (216 bytes), aligned as it is; the same threading contract as SHA-256's. */
typedef struct {
    unsigned long long opaque[28];
} icr_sha512_ctx;

void icr_sha512_init(icr_sha512_ctx *ctx);
void icr_sha512_update(icr_sha512_ctx *ctx, const void *bytes, size_t length);
/* Writes the 64-byte digest to out. */
void icr_sha512_final(icr_sha512_ctx *ctx, unsigned char out[64]);

#endif
