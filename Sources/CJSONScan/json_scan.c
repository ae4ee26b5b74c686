// Stage 1 of the JSON parser: the offsets of each string's end, found 64 bytes
// at a time (the idea of simdjson's stage 1, Langdale and Lemire, "Parsing
// gigabytes of JSON per second", 2019). Each block is reduced to three 64-bit
// masks (quotes, backslashes, bytes < 0x20 or >= 0x80) by SIMD compares or, in
// the portable code, by word arithmetic; the rest is the same scalar bit logic
// for every implementation.
#include "json_scan.h"
#include <string.h>

#define EVEN_BITS 0x5555555555555555ULL
#define ODD_BITS 0xAAAAAAAAAAAAAAAAULL
#define INLINE static inline __attribute__((always_inline))

/// The bytes of the block that a backslash escapes, from its backslashes.
/// `carry` is 1 when the block's first byte is escaped by the previous block,
/// and is set for the next. A backslash escapes the next byte unless it is
/// itself escaped, so in each run of backslashes the first, third, ... escape
/// and the byte after the run is escaped when the run is odd. Runs are told
/// apart by the parity of their first bit: adding each even-started run's first
/// bit to the backslashes clears exactly those runs (the carry stops at the
/// byte after the run); in an even-started run the odd bits are escaped, in an
/// odd-started one the even bits, each counted one past the run's bits.
INLINE uint64_t escaped_bytes(uint64_t backslash, uint64_t *carry) {
    const uint64_t in = *carry;
    if (backslash == 0) {
        *carry = 0;
        return in;
    }
    // A backslash escaped from the previous block starts nothing: the next one
    // starts a run of its own.
    const uint64_t escapers = backslash & ~in;
    const uint64_t starts = escapers & ~(escapers << 1);
    const uint64_t even_runs = escapers & ~(escapers + (starts & EVEN_BITS));
    const uint64_t odd_runs = escapers & ~even_runs;
    *carry = odd_runs >> 63;
    return ((even_runs << 1) & ODD_BITS) | ((odd_runs << 1) & EVEN_BITS) | in;
}

/// The block's entries from its unescaped quotes, their prefix XOR (`parity`:
/// bit i is the parity of the quotes at or below i), its backslashes and its
/// bytes < 0x20 or >= 0x80 (`special`).
///
/// `inside` marks each string's bytes from its opening quote up to, not
/// including, its closing one. The special bytes inside strings are added to
/// `inside`: in a string without one the bits stay as they are; in a string
/// with one the carry runs from its first special byte to the closing quote,
/// which it sets (a bit outside `inside`), and on into the next block when the
/// string goes on there. So the closing quotes of plain strings are the quotes
/// outside `inside` that the sum left clear, and each other string's first
/// special byte is a special bit that received no carry.
INLINE uint64_t block_entries(sluice_json_scan_state *state, uint64_t quotes, uint64_t parity,
                              uint64_t backslash, uint64_t special) {
    const uint64_t inside = parity ^ state->in_string;
    state->in_string = (uint64_t)((int64_t)inside >> 63);
    const uint64_t marked = (backslash | special) & inside;
    uint64_t partial, sum;
    const uint64_t carry1 = __builtin_add_overflow(inside, marked, &partial);
    const uint64_t carry2 = __builtin_add_overflow(partial, state->dirty, &sum);
    state->dirty = carry1 | carry2;
    const uint64_t carried = sum ^ inside ^ marked;
    return (quotes & ~inside & ~sum) | (marked & ~carried);
}

INLINE uint64_t prefix_xor_shifts(uint64_t bits) {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

/// Writes `offset` plus the index of each set bit of `bits`, lowest first.
INLINE uint32_t *write_offsets(uint32_t *out, uint64_t bits, uint32_t offset) {
    while (bits) {
        *out++ = offset + (uint32_t)__builtin_ctzll(bits);
        bits &= bits - 1;
    }
    return out;
}

// MARK: - Portable: eight bytes per 64-bit word

/// The high bit of each byte of `flags` (bits 7, 15, ...) gathered into 8 bits, byte 0 lowest:
/// the multiplier moves byte k's bit to bit 56 + k, and its other products land
/// on distinct bits below, so nothing carries.
INLINE uint64_t gather_high_bits(uint64_t flags) {
    return ((flags >> 7) * 0x0102040810204080ULL) >> 56;
}

/// Bytes of `word` equal to `byte`, flagged in their high bits (exactly: no borrow between bytes).
INLINE uint64_t equal_bytes(uint64_t word, uint8_t byte) {
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    const uint64_t x = word ^ (0x0101010101010101ULL * byte);
    return ~(((x & low7) + low7) | x) & ~low7;
}

/// Bytes of `word` below 0x20 or from 0x80, flagged in their high bits.
INLINE uint64_t special_bytes(uint64_t word) {
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    // For a byte below 0x80, adding 0x60 to it sets its high bit exactly when it is 0x20 or more.
    return (word | ~((word & low7) + 0x6060606060606060ULL)) & ~low7;
}

/// The body of each implementation's scan: `block` over the 64-byte blocks
/// from `from` to `to`, the last partial one read from a copy padded with
/// spaces (which make no entries), so nothing past `to` is read.
#define SCAN_BLOCKS(block)                                                              \
    uint32_t *next = out;                                                               \
    size_t at = from;                                                                   \
    for (; at + 64 <= to; at += 64) next = block(state, text + at, (uint32_t)at, next); \
    if (at < to) {                                                                      \
        uint8_t padded[64];                                                             \
        memset(padded, ' ', sizeof padded);                                             \
        memcpy(padded, text + at, to - at);                                             \
        next = block(state, padded, (uint32_t)at, next);                                \
    }                                                                                   \
    return (size_t)(next - out);

static uint32_t *block_portable(sluice_json_scan_state *state, const uint8_t *block, uint32_t offset, uint32_t *out) {
    uint64_t quote = 0, backslash = 0, special = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t word;
        memcpy(&word, block + 8 * i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        quote |= gather_high_bits(equal_bytes(word, '"')) << (8 * i);
        backslash |= gather_high_bits(equal_bytes(word, '\\')) << (8 * i);
        special |= gather_high_bits(special_bytes(word)) << (8 * i);
    }
    const uint64_t quotes = quote & ~escaped_bytes(backslash, &state->escaped);
    const uint64_t entries = block_entries(state, quotes, prefix_xor_shifts(quotes), backslash, special);
    return write_offsets(out, entries, offset);
}

static size_t scan_portable(sluice_json_scan_state *state, const uint8_t *text, size_t from, size_t to, uint32_t *out) {
    SCAN_BLOCKS(block_portable)
}

#if defined(__x86_64__)
#include <immintrin.h>

// MARK: - SSE2: four 16-byte compares per mask (every x86-64 CPU has it)

INLINE uint64_t mask16x4(__m128i a, __m128i b, __m128i c, __m128i d) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(a) | (uint64_t)(uint16_t)_mm_movemask_epi8(b) << 16
        | (uint64_t)(uint16_t)_mm_movemask_epi8(c) << 32 | (uint64_t)(uint16_t)_mm_movemask_epi8(d) << 48;
}

static uint32_t *block_sse2(sluice_json_scan_state *state, const uint8_t *block, uint32_t offset, uint32_t *out) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)block);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(block + 16));
    const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(block + 32));
    const __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(block + 48));
    const __m128i q = _mm_set1_epi8('"'), s = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x20);
    const uint64_t quote = mask16x4(_mm_cmpeq_epi8(a, q), _mm_cmpeq_epi8(b, q), _mm_cmpeq_epi8(c, q), _mm_cmpeq_epi8(d, q));
    const uint64_t backslash = mask16x4(_mm_cmpeq_epi8(a, s), _mm_cmpeq_epi8(b, s), _mm_cmpeq_epi8(c, s), _mm_cmpeq_epi8(d, s));
    // Signed bytes: below 0x20 is a control character or (negative) a byte >= 0x80.
    const uint64_t special = mask16x4(_mm_cmplt_epi8(a, low), _mm_cmplt_epi8(b, low), _mm_cmplt_epi8(c, low), _mm_cmplt_epi8(d, low));
    const uint64_t quotes = quote & ~escaped_bytes(backslash, &state->escaped);
    const uint64_t entries = block_entries(state, quotes, prefix_xor_shifts(quotes), backslash, special);
    return write_offsets(out, entries, offset);
}

static size_t scan_sse2(sluice_json_scan_state *state, const uint8_t *text, size_t from, size_t to, uint32_t *out) {
    SCAN_BLOCKS(block_sse2)
}

// MARK: - AVX2: two 32-byte compares per mask, the prefix XOR as one carry-less multiply

#define SLUICE_AVX2 __attribute__((target("avx2,pclmul,bmi")))

SLUICE_AVX2 INLINE uint64_t mask32x2(__m256i a, __m256i b) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(a) | (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
}

SLUICE_AVX2 INLINE uint32_t *block_avx2(sluice_json_scan_state *state, const uint8_t *block, uint32_t offset,
                                        uint32_t *out) {
    const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)block);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(block + 32));
    const __m256i q = _mm256_set1_epi8('"'), s = _mm256_set1_epi8('\\'), low = _mm256_set1_epi8(0x20);
    const uint64_t quote = mask32x2(_mm256_cmpeq_epi8(a, q), _mm256_cmpeq_epi8(b, q));
    const uint64_t backslash = mask32x2(_mm256_cmpeq_epi8(a, s), _mm256_cmpeq_epi8(b, s));
    const uint64_t special = mask32x2(_mm256_cmpgt_epi8(low, a), _mm256_cmpgt_epi8(low, b));
    const uint64_t quotes = quote & ~escaped_bytes(backslash, &state->escaped);
    // Multiplying by all ones without carries XORs each bit into every bit above it.
    const uint64_t parity = (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)quotes), _mm_set1_epi8((char)0xFF), 0));
    const uint64_t entries = block_entries(state, quotes, parity, backslash, special);
    return write_offsets(out, entries, offset);
}

SLUICE_AVX2
static size_t scan_avx2(sluice_json_scan_state *state, const uint8_t *text, size_t from, size_t to, uint32_t *out) {
    SCAN_BLOCKS(block_avx2)
}
#endif

static int detect_level(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("bmi")) return 2;
    return 1;
#else
    return 0;
#endif
}

int sluice_json_scan_level(void) {
    static int cached = -1;
    int value = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (value < 0) {
        value = detect_level();
        __atomic_store_n(&cached, value, __ATOMIC_RELAXED);
    }
    return value;
}

size_t sluice_json_scan_strings_at_level(int level, sluice_json_scan_state *state, const uint8_t *text,
                                         size_t length, size_t from, size_t to, uint32_t *out) {
    // Nothing past `length` is read, whatever the caller asks: `to` is clamped to it.
    if (to > length) to = length;
    if (from >= to) return 0;
    // A level this CPU cannot run is not tried (an instruction it lacks would kill the process).
    const int best = sluice_json_scan_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level >= 2) return scan_avx2(state, text, from, to, out);
    if (level == 1) return scan_sse2(state, text, from, to, out);
#endif
    (void)level;
    return scan_portable(state, text, from, to, out);
}

size_t sluice_json_scan_strings(sluice_json_scan_state *state, const uint8_t *text, size_t length, size_t from,
                                size_t to, uint32_t *out) {
    return sluice_json_scan_strings_at_level(sluice_json_scan_level(), state, text, length, from, to, out);
}
