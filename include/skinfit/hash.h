/* skinfit/hash.h — SHA-256 (FIPS 180-4) for stamping outputs with the
 * inputs and options they were made from (batch resume). */
#ifndef SKINFIT_HASH_H
#define SKINFIT_HASH_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skf_sha256 {
    uint32_t state[8];
    uint64_t length;     /* bytes hashed so far */
    uint8_t buffer[64];
    size_t fill;
} skf_sha256;

void skf_sha256_init(skf_sha256 *h);
void skf_sha256_update(skf_sha256 *h, const void *data, size_t size);
void skf_sha256_final(skf_sha256 *h, uint8_t digest[32]);
/* Lower-case hex of a digest, NUL-terminated. */
void skf_sha256_hex(const uint8_t digest[32], char hex[65]);
/* Hash a whole file; errors as skf_read_file. */
skf_status skf_sha256_file(const char *path, char hex[65], skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
