#include "check.h"
#include "skinfit/hash.h"

static void digest_of(const char *msg, size_t n, char hex[65])
{
    skf_sha256 h;
    skf_sha256_init(&h);
    skf_sha256_update(&h, msg, n);
    uint8_t d[32];
    skf_sha256_final(&h, d);
    skf_sha256_hex(d, hex);
}

int main(void)
{
    char hex[65];
    /* FIPS 180-2 appendix B test vectors. */
    digest_of("abc", 3, hex);
    CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_of(two, strlen(two), hex);
    CHECK(!strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    digest_of("", 0, hex);
    CHECK(!strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    /* One million 'a' fed in odd-sized pieces. */
    skf_sha256 h;
    skf_sha256_init(&h);
    char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof chunk ? left : sizeof chunk;
        skf_sha256_update(&h, chunk, n);
        left -= n;
    }
    uint8_t d[32];
    skf_sha256_final(&h, d);
    skf_sha256_hex(d, hex);
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    return skf_test_done();
}
