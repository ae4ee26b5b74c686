#ifndef SLUICE_JSON_SCAN_H
#define SLUICE_JSON_SCAN_H
#include <stddef.h>
#include <stdint.h>

/// What the string index carries from one 64-byte block to the next.
typedef struct {
    /// 1 when the next block's first byte follows an escaping backslash.
    uint64_t escaped;
    /// All ones when the last block ended inside a string, 0 if not.
    uint64_t in_string;
    /// 1 when that string holds a backslash, a control character or a byte >= 0x80.
    uint64_t dirty;
} sluice_json_scan_state;

/// The string index of a JSON text, stage 1 of the parser: reads the 64-byte
/// blocks of `text` (`length` bytes) from `from` (a multiple of 64) to `to` (a
/// multiple of 64, or `length`, whose partial block is read from a copy padded
/// with spaces: nothing past `length` is read), carrying `state` across calls
/// (zeroed before the first), and writes one offset per string ending in that
/// range to `out`, in order: the string's closing quote when the string is plain
/// (no backslash, no byte < 0x20, no byte >= 0x80), or else its first such byte.
/// A string is what lies between an unescaped quote and the next one, escapes
/// being backslash runs of odd length; in a valid text those are exactly its
/// strings. A string still open at `length` gets an entry only if it is not
/// plain. Returns the number of offsets written. `out` has room for at least
/// (to - from) / 2 + 64 of them (two entries are at least two bytes apart).
size_t sluice_json_scan_strings(sluice_json_scan_state *state, const uint8_t *text, size_t length,
                                size_t from, size_t to, uint32_t *out);

/// The implementations: 0 portable C (64-bit words), 1 SSE2, 2 AVX2 with
/// PCLMULQDQ and BMI1. `sluice_json_scan_strings` uses the best this CPU has.
int sluice_json_scan_level(void);

/// The same with implementation `level` (the tests compare them); a level above
/// sluice_json_scan_level() is taken as that one.
size_t sluice_json_scan_strings_at_level(int level, sluice_json_scan_state *state, const uint8_t *text,
                                         size_t length, size_t from, size_t to, uint32_t *out);

#endif
