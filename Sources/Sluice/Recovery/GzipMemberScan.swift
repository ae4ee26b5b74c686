// Unsafe code: lines are counted with memchr(3) over the inflater's output
// buffer, and the file's tail is read with pread(2) into an array's bytes: C
// calls that take pointers. memchr is given only the bytes left of what was
// produced; pread only the array's size.

import CZlib
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much of a gzip file is whole: the members that decompress completely
/// with a matching CRC-32 and length, and where the damage starts.
///
/// Sluice ends a member at every block and every flush, always after a record, so the
/// complete members of a `.part` left by a crash hold whole records, and
/// their bytes alone are a valid gzip file.
public struct GzipMemberScan: Equatable, Sendable {
    /// Complete members, from the start of the file.
    public internal(set) var members = 0
    /// Bytes of the file the complete members take (a prefix of the file).
    public internal(set) var validBytes = 0
    /// Newlines in the complete members' data (records).
    public internal(set) var lines = 0
    /// Uncompressed bytes in the complete members.
    public internal(set) var dataBytes = 0
    /// The file's size.
    public internal(set) var fileBytes = 0
    /// What is wrong after `validBytes`, nil when the whole file is complete members.
    public internal(set) var damage: String?
    /// When the file ends inside a member (a crash mid-write): the whole
    /// lines that member's data holds before the cut, and the bytes of them.
    /// Deflate decodes a cut stream up to the cut, so these are the records
    /// as written; what follows the last newline (half a record) is `cutTailBytes`.
    public internal(set) var cutLines = 0
    public internal(set) var cutLineBytes = 0
    public internal(set) var cutTailBytes = 0

    public var isComplete: Bool { damage == nil && members > 0 }

    /// Reads `fd` from its start to its end, or to byte `limit`.
    static func scan(fd: Int32, limit: Int? = nil) throws(RecoveryError) -> GzipMemberScan {
        var result = GzipMemberScan()
        let inflater = GzipInflater()
        var fileOffset = 0          // bytes read from the file
        var memberStart = 0         // file offset where the current member starts
        var memberLines = 0
        var memberData = 0
        var memberTail = 0          // data bytes after the member's last newline
        var inMember = false
        var atEnd = false
        while true {
            if inflater.pendingInput == 0 && !atEnd {
                let n = inflater.refill { buffer in
                    pread(fd, buffer.baseAddress, min(buffer.count, max((limit ?? Int.max) - fileOffset, 0)), off_t(fileOffset))
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .readFailed(errno: errno)
                }
                if n == 0 {
                    // Let inflate hand out what it decoded of a cut member, then stop.
                    guard inMember else { break }
                    atEnd = true
                } else {
                    fileOffset += n
                }
            }
            if !atEnd { inMember = true }
            let (step, bytes) = inflater.inflate()
            let produced = step.produced
            memberData += produced
            if produced > 0 {
                var cursor = bytes.baseAddress!
                var left = produced
                while left > 0, let found = memchr(cursor, 0x0A, left) {
                    memberLines += 1
                    let skip = cursor.distance(to: UnsafeRawPointer(found)) + 1
                    cursor += skip
                    left -= skip
                    memberTail = 0
                }
                memberTail += left
            }
            if atEnd && step.status != .memberEnd {
                if produced > 0 && step.status == .progress { continue }
                break
            }
            switch step.status {
            case .memberEnd:
                let consumed = fileOffset - inflater.pendingInput
                result.members += 1
                result.validBytes = consumed
                result.lines += memberLines
                result.dataBytes += memberData
                memberLines = 0
                memberData = 0
                memberTail = 0
                memberStart = consumed
                inMember = false
                inflater.nextMember()
            case .progress:
                continue
            case .stalled where inflater.pendingInput == 0:
                continue
            case .stalled, .failed:
                var message = "inflate error \(Z_BUF_ERROR)"
                if case let .failed(text) = step.status { message = text }
                result.damage = "\(message) in the member at byte \(memberStart)"
                result.fileBytes = fileSize(fd) ?? fileOffset
                return result
            }
        }
        result.fileBytes = fileOffset
        if inMember && fileOffset > result.validBytes {
            result.damage = "truncated: the member at byte \(memberStart) has no end (unexpected end of file)"
            result.cutLines = memberLines
            result.cutLineBytes = memberData - memberTail
            result.cutTailBytes = memberTail
        }
        return result
    }

    /// Where the run of zero bytes that ends the file starts (a filesystem
    /// that extended a file but never wrote its last blocks, as ext4 can
    /// after a power loss), nil when the file does not end in a zero byte.
    static func trailingZerosStart(_ fd: Int32) throws(RecoveryError) -> Int? {
        guard var end = fileSize(fd), end > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let size = end
        while end > 0 {
            let start = max(0, end - buffer.count)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, end - start, off_t(start)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(errno: errno)
            }
            guard n == end - start else { return nil }
            if let last = buffer[0..<n].lastIndex(where: { $0 != 0 }) {
                let zeros = start + last + 1
                return zeros < size ? zeros : nil
            }
            end = start
        }
        return 0
    }

    /// The scan of a damaged file that ends in zeros, read as if it ended
    /// where they start: the zeros were never written (inflate may even take
    /// them for data, and decode lines of garbage from them), so the whole
    /// lines of the member they cut are salvaged as from any cut member.
    /// Dropping a zero byte the member really had loses at most its last
    /// line, never garbles one. `self` when the file is whole or ends otherwise.
    func readingPastTrailingZeros(of fd: Int32) throws(RecoveryError) -> GzipMemberScan {
        guard damage != nil, let zeros = try GzipMemberScan.trailingZerosStart(fd), zeros > validBytes else {
            return self
        }
        var trimmed = try GzipMemberScan.scan(fd: fd, limit: zeros)
        guard trimmed.members == members, let cut = trimmed.damage else { return self }
        trimmed.fileBytes = fileBytes
        trimmed.damage = cut + ", followed by \(fileBytes - zeros) zero bytes (a file extended but not written, as after a power loss)"
        return trimmed
    }

    private static func fileSize(_ fd: Int32) -> Int? {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int(info.st_size) : nil
    }
}
