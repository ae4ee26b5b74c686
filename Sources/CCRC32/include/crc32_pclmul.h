#ifndef SLUICE_CRC32_PCLMUL_H
#define SLUICE_CRC32_PCLMUL_H
#include <stddef.h>
#include <stdint.h>

/// The CRC-32 of gzip (and zlib's crc32): `crc` is the value so far (0 to
/// start), the result covers `buf[0..<len]` after it, so calls chain over
/// split buffers exactly as zlib's crc32_z does. On x86-64 CPUs with PCLMULQDQ
/// and SSE4.1 the bulk is folded with carry-less multiplies; everywhere else,
/// and for what is left over, it is zlib's table-driven crc32_z.
uint32_t sluice_crc32(uint32_t crc, const uint8_t *buf, size_t len);

/// 1 if sluice_crc32 folds with PCLMULQDQ on this CPU, 0 if it is zlib's alone.
int sluice_crc32_uses_pclmul(void);

#endif
