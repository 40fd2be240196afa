/* Base64 decoding for glTF data: URIs.
 *
 * Reference: RFC 4648 section 4 (standard alphabet A-Z a-z 0-9 + /, '='
 * padding). glTF embeds buffers as "data:<mime>;base64,<payload>"; the
 * payload may omit padding in practice, so padding is optional here. Any
 * other character (including whitespace) is rejected with its offset so the
 * caller can name the place.
 */
#include "io/gltf_internal.h"

static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool skfi_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_size,
                        size_t *bad_at)
{
    *out = NULL;
    *out_size = 0;
    *bad_at = 0;
    /* Strip up to two '=' of padding; '=' anywhere else is invalid. */
    size_t n = len;
    for (int k = 0; k < 2 && n > 0 && text[n - 1] == '='; ++k)
        --n;
    if (n % 4 == 1) {   /* a lone trailing sextet cannot encode a byte */
        *bad_at = n - 1;
        return false;
    }
    size_t size = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    uint8_t *buf = skf_malloc(size ? size : 1);
    if (!buf) {
        *bad_at = SIZE_MAX;
        return false;
    }
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; ++i) {
        int v = sextet((unsigned char)text[i]);
        if (v < 0) {
            skf_free(buf);
            *bad_at = i;
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    *out = buf;
    *out_size = o;
    return true;
}
