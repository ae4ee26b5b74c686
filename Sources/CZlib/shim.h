#ifndef SLUICE_CZLIB_SHIM_H
#define SLUICE_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 and inflateInit2 are macros; Swift cannot call macros, so wrap them.
static inline int sluice_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

static inline int sluice_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
