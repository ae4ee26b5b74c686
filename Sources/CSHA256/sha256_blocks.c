// SHA-256's compression function: portable C, and the x86 SHA extensions
// (the instruction sequence of Intel's "Intel SHA Extensions" paper, 2013).
#include "sha256_blocks.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

void sluice_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks, size_t count) {
    while (count--) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++) {
            const uint8_t *p = blocks + 4 * t;
            w[t] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
        }
        for (int t = 16; t < 64; t++) {
            const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
            const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
            const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1;
            d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
        blocks += 64;
    }
}

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#define SLUICE_SHA_NI __attribute__((target("sha,sse4.1,ssse3")))

SLUICE_SHA_NI
static void sha256_blocks_ni(uint32_t state[8], const uint8_t *blocks, size_t count) {
    // Big-endian words from the message bytes.
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The instructions keep the state as ABEF and CDGH.
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&state[0]), 0xB1);  // CDAB
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&state[4]), 0x1B);  // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);  // CDGH

    while (count--) {
        const __m128i saved0 = state0, saved1 = state1;
        __m128i msg[4];
        for (int i = 0; i < 4; i++) {
            msg[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(blocks + 16 * i)), byteSwap);
        }
        for (int i = 0; i < 16; i++) {
            // Four rounds: two with the low half of W+K, two with the high half.
            __m128i wk = _mm_add_epi32(msg[i & 3], _mm_loadu_si128((const __m128i *)(const void *)&K[4 * i]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, wk);
            wk = _mm_shuffle_epi32(wk, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, wk);
            if (i < 12) {
                // W[4i+16..4i+19] from the four groups before them, into the slot just used.
                __m128i next = _mm_sha256msg1_epu32(msg[i & 3], msg[(i + 1) & 3]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(msg[(i + 3) & 3], msg[(i + 2) & 3], 4));
                msg[i & 3] = _mm_sha256msg2_epu32(next, msg[(i + 3) & 3]);
            }
        }
        state0 = _mm_add_epi32(state0, saved0);
        state1 = _mm_add_epi32(state1, saved1);
        blocks += 64;
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);  // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);  // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);  // HGFE
    _mm_storeu_si128((__m128i *)(void *)&state[0], state0);
    _mm_storeu_si128((__m128i *)(void *)&state[4], state1);
}

static int has_sha_ni(void) {
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        unsigned a, b, c, d;
        value = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1)
            && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA)) {
            value = 1;
        }
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
}
#endif

void sluice_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count) {
#if defined(__x86_64__)
    if (has_sha_ni()) {
        sha256_blocks_ni(state, blocks, count);
        return;
    }
#endif
    sluice_sha256_blocks_portable(state, blocks, count);
}

int sluice_sha256_uses_sha_ni(void) {
#if defined(__x86_64__)
    return has_sha_ni();
#else
    return 0;
#endif
}
