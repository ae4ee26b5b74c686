#ifndef SLUICE_RENAME_NOREPLACE_H
#define SLUICE_RENAME_NOREPLACE_H

/// Renames `from` to `to` in one atomic step, failing with EEXIST instead of
/// replacing a file already at `to`: renameat2(2) with RENAME_NOREPLACE on
/// Linux, renamex_np(2) with RENAME_EXCL on macOS. Returns 0, or -1 with errno
/// set; EINVAL or ENOSYS when the filesystem or the kernel cannot do it.
int sluice_rename_noreplace(const char *from, const char *to);

#endif
