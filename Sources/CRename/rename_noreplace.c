// renameat2(2) is a GNU extension that Swift's Glibc module does not export:
// it needs _GNU_SOURCE before the first header.
#define _GNU_SOURCE
#include "rename_noreplace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int sluice_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__)
#ifdef RENAME_NOREPLACE
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#else
    errno = ENOSYS;
    return -1;
#endif
#elif defined(__APPLE__)
    return renamex_np(from, to, RENAME_EXCL);
#else
    errno = ENOSYS;
    return -1;
#endif
}
