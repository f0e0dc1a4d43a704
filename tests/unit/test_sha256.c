/* test_sha256.c — common/sha256.c against the NIST FIPS 180-4 example
 * vectors (csrc.nist.gov "SHA256.pdf", "SHA2_Additional.pdf"), plus
 * split-update equivalence. */
#include "common/sha256.h"
#include "tests/unit/t.h"

static const char *hex_of(const char *s, size_t n)
{
    static char hex[KR_SHA256_HEX];
    kr_sha256_hex_of(s, n, hex);
    return hex;
}

int main(void)
{
    T_EQ_STR(hex_of("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    T_EQ_STR(hex_of("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 448-bit message: two blocks after padding. */
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    T_EQ_STR(hex_of(m448, strlen(m448)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* 896-bit message. */
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    T_EQ_STR(hex_of(m896, strlen(m896)), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* One million 'a', fed in uneven pieces to exercise the block buffer. */
    char chunk[997];
    memset(chunk, 'a', sizeof chunk);
    kr_sha256 s;
    kr_sha256_init(&s);
    size_t left = 1000000;
    for (size_t piece = 1; left; piece = piece % 997 + 7) {
        size_t n = piece < left ? piece : left;
        if (n > sizeof chunk)
            n = sizeof chunk;
        kr_sha256_update(&s, chunk, n);
        left -= n;
    }
    char hex[KR_SHA256_HEX];
    kr_sha256_hex(&s, hex);
    T_EQ_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* Byte-at-a-time equals one shot across the 55/56/64-byte padding edges. */
    char msg[130];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (char)('0' + i % 43);
    size_t lens[] = {55, 56, 63, 64, 65, 119, 120, 128};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char one[KR_SHA256_HEX], many[KR_SHA256_HEX];
        kr_sha256_hex_of(msg, lens[k], one);
        kr_sha256_init(&s);
        for (size_t i = 0; i < lens[k]; i++)
            kr_sha256_update(&s, msg + i, 1);
        kr_sha256_hex(&s, many);
        T_EQ_STR(many, one);
    }
    /* 64 bytes: the padding goes into a second block (value from sha256sum). */
    memset(chunk, 'a', 64);
    T_EQ_STR(hex_of(chunk, 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    return t_done("test_sha256");
}
