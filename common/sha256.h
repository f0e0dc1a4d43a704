/* sha256.h — SHA-256 (FIPS 180-4) for the MANIFEST.json of `kreport pack`
 * and for comparing capture folders by content.
 *
 * Streaming: kr_sha256_init, any number of kr_sha256_update, then
 * kr_sha256_final (32 bytes) or kr_sha256_hex (64 lowercase hex digits and a
 * NUL). No allocation; O(n) time, 104 bytes of state. */
#ifndef KR_COMMON_SHA256_H
#define KR_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KR_SHA256_HEX 65   /* 64 hex digits + NUL */

typedef struct kr_sha256 {
    uint32_t h[8];
    uint64_t bytes;          /* message length so far */
    unsigned char block[64];
    size_t fill;             /* bytes in block */
} kr_sha256;

void kr_sha256_init(kr_sha256 *s);
void kr_sha256_update(kr_sha256 *s, const void *data, size_t len);
void kr_sha256_final(kr_sha256 *s, unsigned char digest[32]);
/* Finishes s and writes the digest as hex into hex[KR_SHA256_HEX]. */
void kr_sha256_hex(kr_sha256 *s, char hex[KR_SHA256_HEX]);
/* One-shot hex digest of data. */
void kr_sha256_hex_of(const void *data, size_t len, char hex[KR_SHA256_HEX]);

#endif
