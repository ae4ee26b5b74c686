// Unsafe code: a finished file is read with read(2) into an array's bytes, and
// its lines are found by scanning the text through `withUnsafeBufferPointer`;
// each read is given only the room left, and no pointer outlives its call.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Sluice

/// A finished file of a destination, read back: its gzip bytes as written,
/// and its records (lines) by index, which is how the ledger and the
/// send-rejects name them.
///
/// Sendable: every field is a `let` set in `init` (the arrays are values);
/// nothing in it changes once it is made.
final class SendFile: @unchecked Sendable {
    /// The path under the output root, as the ledger names it.
    let path: String
    /// Which file of that name it is (device, inode, size): `sluice run` may
    /// write a new file under a name a sent file had before it moved.
    let identity: String
    /// The file's bytes, as written (gzip).
    let compressed: [UInt8]
    /// The file's records as one gzip member, the body of a request that sends
    /// the file whole: its bytes as written when they are one member (as
    /// `sluice run` writes the files of a destination `send` delivers), else
    /// compressed again in one piece (a `--flush-interval` ended a member
    /// while the file was open, or `gzip_members: blocks`), because some
    /// servers' decoders read only a body's first member.
    let oneMember: [UInt8]
    /// Its records, one after another, each ending in `\n`.
    let text: [UInt8]
    /// Where record `i` starts in `text`; `starts[count]` is `text.count`.
    let starts: [Int]

    var count: Int { starts.count - 1 }

    init(path: String, identity: String, compressed: [UInt8], text: [UInt8], members: Int = 1) {
        self.path = path
        self.identity = identity
        self.compressed = compressed
        oneMember = members <= 1 ? compressed : GzipDeflater.member(of: text[...], level: 6)
        self.text = text
        var starts = [0]
        starts.reserveCapacity(2048)
        text.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                if bytes[index] == 0x0A { starts.append(index + 1) }
                index += 1
            }
        }
        // A last record without its newline (never written so, but read as a record all the same).
        if let last = starts.last, last < text.count { starts.append(text.count) }
        self.starts = starts
    }

    /// The bytes of records `range`, newlines included.
    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { text[starts[range.lowerBound]..<starts[range.upperBound]] }

    /// The bytes of record `index`, without its newline.
    func record(_ index: Int) -> ArraySlice<UInt8> {
        var end = starts[index + 1]
        if end > starts[index], text[end - 1] == 0x0A { end -= 1 }
        return text[starts[index]..<end]
    }

    /// Reads a file: nil with a message when it cannot be read or is not whole gzip.
    static func read(root: String, path: String) -> Result<SendFile, SendFailure> {
        let full = root + "/" + path
        let fd = open(full, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return .failure(.io("cannot open \(full): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.io("cannot stat \(full): \(String(cString: strerror(errno)))")) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .failure(.io("cannot read \(full): \(n < 0 ? String(cString: strerror(errno)) : "it shrank")")) }
            filled += n
        }
        var members = 0
        guard let text = GzipInflater.decompress(bytes, members: &members) else {
            return .failure(.data("\(full) is not a whole gzip file; it was not sent (sluice recover finishes a crashed run's files)"))
        }
        return .success(SendFile(path: path, identity: identity(info), compressed: bytes, text: text, members: members))
    }

    static func identity(_ info: stat) -> String { "\(info.st_dev)-\(info.st_ino)-\(info.st_size)" }
}
