// Unsafe code: zlib's `z_stream` is C state that keeps its own address and
// raw pointers into the buffers it reads and writes. This type owns the
// stream and its input buffer (allocated here, freed in deinit) and takes an
// output buffer only for the length of one call, so every gzip reader of the
// package (input files, `.part` recovery, `sluice send`'s finished files)
// inflates through it and none touches a `z_stream` or its pointers.
import CZlib

/// zlib's inflate set up for gzip members (`16 + MAX_WBITS`: the gzip wrapper
/// only), one member after another: after `.memberEnd`, `nextMember()` starts
/// the next, since a file `sluice run` writes holds many (`cat a.gz b.gz` is gzip too).
///
/// Input goes in through `refill` (into the inflater's own buffer), output
/// comes out through `inflate(into:)` or `inflate()` (into an output buffer of
/// its own, for a reader that only looks at the bytes).
public final class GzipInflater {
    /// What one call of `inflate` came to.
    public enum Status: Equatable, Sendable {
        /// zlib's `Z_OK`: it made progress; more may come.
        case progress
        /// zlib's `Z_BUF_ERROR`: no progress was possible (no input left, or no room): not an error by itself.
        case stalled
        /// The member ended and its CRC-32 and length matched.
        case memberEnd
        /// The data is damaged: zlib's message (or `inflate error N`).
        case failed(String)
    }

    /// One call's outcome, and the bytes it wrote and read.
    public struct Step {
        public let status: Status
        public let produced: Int
        public let consumed: Int
    }

    public static let defaultBufferBytes = 256 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var output: UnsafeMutableRawBufferPointer?
    /// False when zlib could not set the stream up (out of memory): every inflate fails.
    private let ready: Bool

    /// `inputBytes`: how much compressed input one `refill` reads at most.
    public init(inputBytes: Int = GzipInflater.defaultBufferBytes) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(byteCount: inputBytes, alignment: 16)
        ready = sluice_inflateInit2(stream, 16 + MAX_WBITS) == Z_OK
    }

    /// A copy of `other`'s stream, where it stands in its member, with its own
    /// input buffer. Its first input is what `other` has not consumed yet, read
    /// from `other`'s buffer: `other` is neither refilled nor freed while the copy reads it.
    private init?(copying other: GzipInflater, inputBytes: Int) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard other.ready, inflateCopy(stream, other.stream) == Z_OK else {
            stream.deallocate()
            return nil
        }
        input = .allocate(byteCount: inputBytes, alignment: 16)
        ready = true
    }

    deinit {
        if ready { inflateEnd(stream) }
        stream.deallocate()
        input.deallocate()
        output?.deallocate()
    }

    /// The same stream, to inflate ahead without moving this one (`GzipMemberCheck`); nil when out of memory.
    func copy(inputBytes: Int = GzipInflater.defaultBufferBytes) -> GzipInflater? {
        GzipInflater(copying: self, inputBytes: inputBytes)
    }

    /// Compressed bytes given and not consumed yet.
    public var pendingInput: Int { Int(stream.pointee.avail_in) }

    /// Reads the next compressed bytes with `read` (into the inflater's buffer;
    /// it returns how many it wrote, 0 at the end, or a negative count for an
    /// error) and makes them the input; returns what `read` did. Only when no input is pending.
    @inline(__always)
    public func refill(_ read: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        let n = try read(input)
        if n > 0 {
            stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_in = uInt(n)
        }
        return n
    }

    /// Inflates the pending input into `out`, until one of them is used up, the member ends or the data fails.
    @inline(__always)
    public func inflate(into out: UnsafeMutableRawBufferPointer) -> Step {
        guard ready else { return Step(status: .failed("out of memory"), produced: 0, consumed: 0) }
        stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(out.count)
        let before = stream.pointee.avail_in
        let code = CZlib.inflate(stream, Z_NO_FLUSH)
        let produced = out.count - Int(stream.pointee.avail_out)
        let consumed = Int(before - stream.pointee.avail_in)
        let status: Status
        switch code {
        case Z_OK: status = .progress
        case Z_BUF_ERROR: status = .stalled
        case Z_STREAM_END: status = .memberEnd
        default: status = .failed(stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(code)")
        }
        return Step(status: status, produced: produced, consumed: consumed)
    }

    /// The same into the inflater's own output buffer (`defaultBufferBytes`);
    /// `bytes` are what it produced, valid until the next call.
    public func inflate() -> (step: Step, bytes: UnsafeRawBufferPointer) {
        let out = output ?? .allocate(byteCount: GzipInflater.defaultBufferBytes, alignment: 16)
        output = out
        let step = inflate(into: out)
        return (step, UnsafeRawBufferPointer(rebasing: out[0..<step.produced]))
    }

    /// After `.memberEnd`: the next bytes are a new member's.
    public func nextMember() {
        inflateReset(stream)
    }

    /// The uncompressed bytes of every member of `data`; nil when it is not
    /// gzip, is damaged, or ends inside a member (a finished file never does:
    /// `sluice run` renames a file only once it is complete).
    public static func decompress(_ data: [UInt8]) -> [UInt8]? {
        var members = 0
        return decompress(data, members: &members)
    }

    /// The same, and how many members `data` holds.
    public static func decompress(_ data: [UInt8], members: inout Int) -> [UInt8]? {
        members = 0
        guard !data.isEmpty else { return [] }
        let inflater = GzipInflater()
        var out: [UInt8] = []
        out.reserveCapacity(data.count * 6)
        var offset = 0
        while true {
            let (step, bytes) = inflater.inflate()
            out.append(contentsOf: bytes)
            switch step.status {
            case .progress:
                continue
            case .memberEnd:
                members += 1
                inflater.nextMember()
                if inflater.pendingInput == 0 && offset == data.count { return out }
            case .stalled:
                // No progress without input: the next bytes, unless the data ended inside a member.
                guard inflater.pendingInput == 0, offset < data.count else { return nil }
                offset += inflater.refill { buffer in
                    let n = min(buffer.count, data.count - offset)
                    data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                    return n
                }
            case .failed:
                return nil
            }
        }
    }
}
