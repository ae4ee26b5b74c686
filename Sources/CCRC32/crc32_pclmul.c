// CRC-32 (the gzip polynomial, bit-reflected) by folding with carry-less
// multiplication, after Gopal, Ozturk et al., "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), the scheme
// Chromium's zlib uses. Four 128-bit accumulators each take 16 bytes of every
// 64; at the end they are folded into one, then to 64 bits, then Barrett-
// reduced to the 32-bit remainder. The constants are x^n mod P(x) for the
// fold distances, bit-reflected and shifted as the paper gives them.
#include "crc32_pclmul.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>

#define SLUICE_PCLMUL __attribute__((target("pclmul,sse4.1")))

// k1:k2 fold 512 bits (four lanes), k3:k4 fold 128 bits (one lane),
// k5 folds 64 bits down to 32 + 64, and poly holds P(x) and mu for Barrett.
static const uint64_t k1k2[2] __attribute__((aligned(16))) = { 0x0154442bd4, 0x01c6e41596 };
static const uint64_t k3k4[2] __attribute__((aligned(16))) = { 0x01751997d0, 0x00ccaa009e };
static const uint64_t k5k0[2] __attribute__((aligned(16))) = { 0x0163cd6124, 0x0000000000 };
static const uint64_t poly[2] __attribute__((aligned(16))) = { 0x01db710641, 0x01f7011641 };

// acc * k (low half by low constant, high half by high constant), plus data.
SLUICE_PCLMUL static inline __m128i fold128(__m128i acc, __m128i k, __m128i data) {
    __m128i low = _mm_clmulepi64_si128(acc, k, 0x00);
    __m128i high = _mm_clmulepi64_si128(acc, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(high, low), data);
}

// The raw (not pre/post-inverted) CRC register over `len` bytes, `len` at
// least 64 and a multiple of 16; `buf` need not be aligned.
SLUICE_PCLMUL static uint32_t fold_crc(const uint8_t *buf, size_t len, uint32_t crc) {
    __m128i a0 = _mm_loadu_si128((const __m128i *)(buf + 0));
    __m128i a1 = _mm_loadu_si128((const __m128i *)(buf + 16));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(buf + 32));
    __m128i a3 = _mm_loadu_si128((const __m128i *)(buf + 48));
    a0 = _mm_xor_si128(a0, _mm_cvtsi32_si128((int)crc));
    buf += 64;
    len -= 64;

    __m128i k = _mm_load_si128((const __m128i *)k1k2);
    while (len >= 64) {
        a0 = fold128(a0, k, _mm_loadu_si128((const __m128i *)(buf + 0)));
        a1 = fold128(a1, k, _mm_loadu_si128((const __m128i *)(buf + 16)));
        a2 = fold128(a2, k, _mm_loadu_si128((const __m128i *)(buf + 32)));
        a3 = fold128(a3, k, _mm_loadu_si128((const __m128i *)(buf + 48)));
        buf += 64;
        len -= 64;
    }

    // Four lanes into one, then any remaining 16-byte blocks.
    k = _mm_load_si128((const __m128i *)k3k4);
    __m128i x = fold128(a0, k, a1);
    x = fold128(x, k, a2);
    x = fold128(x, k, a3);
    while (len >= 16) {
        x = fold128(x, k, _mm_loadu_si128((const __m128i *)buf));
        buf += 16;
        len -= 16;
    }

    // 128 bits to 64: the low half times k4, added to the high half.
    const __m128i low32s = _mm_setr_epi32(~0, 0, ~0, 0);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k, 0x10));
    // 64 bits to 32 + 64: the low 32 bits times k5, added to the rest.
    __m128i rest = _mm_srli_si128(x, 4);
    x = _mm_clmulepi64_si128(_mm_and_si128(x, low32s), _mm_loadl_epi64((const __m128i *)k5k0), 0x00);
    x = _mm_xor_si128(x, rest);

    // Barrett reduction: q = floor(x / P) via mu, then x - q * P.
    const __m128i p = _mm_load_si128((const __m128i *)poly);
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32s), p, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, low32s), p, 0x00);
    x = _mm_xor_si128(x, t);
    return (uint32_t)_mm_extract_epi32(x, 1);
}

static int has_pclmul(void) {
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
}

uint32_t sluice_crc32(uint32_t crc, const uint8_t *buf, size_t len) {
    if (len >= 64 && has_pclmul()) {
        size_t bulk = len & ~(size_t)15;
        crc = ~fold_crc(buf, bulk, ~crc);
        buf += bulk;
        len -= bulk;
    }
    return len ? (uint32_t)crc32_z(crc, buf, len) : crc;
}

int sluice_crc32_uses_pclmul(void) { return has_pclmul(); }

#else

uint32_t sluice_crc32(uint32_t crc, const uint8_t *buf, size_t len) {
    return (uint32_t)crc32_z(crc, buf, len);
}

int sluice_crc32_uses_pclmul(void) { return 0; }

#endif
