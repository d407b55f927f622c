/* sha256.c: SHA-256 and SHA-512 by libcrypto's static archive (see ccrypto.h). */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Init & co.: the one-digest API, without EVP's lookups */
#include "ccrypto.h"
#include <openssl/sha.h>

_Static_assert(sizeof(SHA256_CTX) <= sizeof(icr_sha256_ctx), "icr_sha256_ctx holds SHA256_CTX");
_Static_assert(_Alignof(SHA256_CTX) <= _Alignof(icr_sha256_ctx), "icr_sha256_ctx is aligned for SHA256_CTX");

/* The three cannot fail for SHA-256 (they return 1 unless a pointer is NULL). */
void icr_sha256_init(icr_sha256_ctx *ctx) { SHA256_Init((SHA256_CTX *)ctx); }

void icr_sha256_update(icr_sha256_ctx *ctx, const void *bytes, size_t length) {
    if (length > 0) SHA256_Update((SHA256_CTX *)ctx, bytes, length);
}

void icr_sha256_final(icr_sha256_ctx *ctx, unsigned char out[32]) { SHA256_Final(out, (SHA256_CTX *)ctx); }

_Static_assert(sizeof(SHA512_CTX) <= sizeof(icr_sha512_ctx), "icr_sha512_ctx holds SHA512_CTX");
_Static_assert(_Alignof(SHA512_CTX) <= _Alignof(icr_sha512_ctx), "icr_sha512_ctx is aligned for SHA512_CTX");

void icr_sha512_init(icr_sha512_ctx *ctx) { SHA512_Init((SHA512_CTX *)ctx); }

void icr_sha512_update(icr_sha512_ctx *ctx, const void *bytes, size_t length) {
    if (length > 0) SHA512_Update((SHA512_CTX *)ctx, bytes, length);
}

void icr_sha512_final(icr_sha512_ctx *ctx, unsigned char out[64]) { SHA512_Final(out, (SHA512_CTX *)ctx); }
