// Unsafe code: a secret file is read with read(2) into an array's bytes
// (`withUnsafeMutableBytes`), as the C call takes a pointer; each read is
// given only the room left (`count - filled`).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a secret (the privacy stage's pseudonymization key, `send:`'s
/// credentials) may come from, and what is refused: a secret file is a regular
/// file of at most `maxFileBytes` (a device such as `/dev/zero` or a FIFO
/// would be read without end, or hang), and an `*_env` key names a variable:
/// a value that looks like a secret is never repeated in a message.
public enum SecretSource {
    /// The largest secret file read (a key is 16 bytes or more; 64 KiB is far more than any needs).
    public static let maxFileBytes = 64 * 1024

    /// What a secret file held, and its permission bits.
    public struct FileKey {
        public var bytes: [UInt8]
        public var mode: UInt32

        /// Whether the group or others may read it (ssh refuses such a private key; Sluice warns).
        public var readableByOthers: Bool { mode & 0o044 != 0 }
    }

    public enum FileProblem: Error, CustomStringConvertible {
        case cannotOpen(errno: Int32)
        case notRegular(kind: String)
        case tooLarge(bytes: Int)
        case cannotRead(errno: Int32)

        public var description: String {
            switch self {
            case let .cannotOpen(code), let .cannotRead(code): return "cannot read the key: \(String(cString: strerror(code)))"
            case let .notRegular(kind): return "it is \(kind), not a regular file; the key must be in a regular file"
            case let .tooLarge(bytes):
                return "it has \(bytes) bytes; a key file holds at most \(SecretSource.maxFileBytes / 1024) KiB"
            }
        }
    }

    /// Reads a key file: opened without waiting (a FIFO would block the open),
    /// refused unless it is a regular file, and read up to `maxFileBytes` + 1
    /// bytes whatever its size said (it may grow in between).
    public static func readFile(_ path: String) throws(FileProblem) -> FileKey {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 { throw .cannotOpen(errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotRead(errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular(kind: kind(info.st_mode)) }
        guard info.st_size <= maxFileBytes else { throw .tooLarge(bytes: Int(info.st_size)) }
        var bytes = [UInt8](repeating: 0, count: maxFileBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(errno: errno)
            }
            if n == 0 { break }
            filled += n
        }
        if filled > maxFileBytes { throw .tooLarge(bytes: filled) }
        return FileKey(bytes: Array(bytes[..<filled]), mode: UInt32(info.st_mode))
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// Whether `key_env`'s value looks like a key rather than a variable's
    /// name: not a name at all (a byte other than letters, digits and `_`, such
    /// as base64's `+/=`, or a leading digit); a part between `_`s of 16 or
    /// more letters and digits with a digit in it (hex, base32, base64 without
    /// symbols, the tail of Stripe-style `sk_live_…` keys), which the parts of
    /// names such as `SLUICE_HMAC_KEY` or `PSEUDONYM_KEY_2026` are not; or a
    /// key's well-known prefix (`sk_live_`, `sk_test_`, `rk_live_`, …).
    public static func looksLikeKey(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return false }
        let isName = (ASCIIBytes.isLetter(first) || first == UInt8(ascii: "_")) && bytes.allSatisfy(ASCIIBytes.isWord)
        if !isName { return true }
        let lowered = name.lowercased()
        if ["sk_", "rk_", "pk_"].contains(where: { lowered.hasPrefix($0 + "live_") || lowered.hasPrefix($0 + "test_") }) { return true }
        return bytes.split(separator: UInt8(ascii: "_")).contains { part in part.count >= 16 && part.contains(where: ASCIIBytes.isDigit) }
    }
}
