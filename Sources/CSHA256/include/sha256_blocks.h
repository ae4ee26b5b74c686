#ifndef SLUICE_SHA256_BLOCKS_H
#define SLUICE_SHA256_BLOCKS_H
#include <stddef.h>
#include <stdint.h>

/// SHA-256's compression function (FIPS 180-4, 6.2.2) over `count` 64-byte
/// blocks at `blocks`, updating `state` (the eight working words H0..H7 as
/// numbers). Padding is the caller's: this is the core a keyed hash with
/// precomputed key blocks needs, without a context object to copy per value.
/// On x86-64 CPUs with the SHA extensions (SHA-NI) it runs on them; everywhere
/// else it is the portable C definition.
void sluice_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count);

/// The same, always the portable C definition (the tests compare the two).
void sluice_sha256_blocks_portable(uint32_t state[8], const uint8_t *blocks, size_t count);

/// 1 if sluice_sha256_blocks runs on the SHA extensions on this CPU, 0 if not.
int sluice_sha256_uses_sha_ni(void);

#endif
