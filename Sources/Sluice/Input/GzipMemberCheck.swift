/// Checks a gzip member ahead of its reader: the rest of the member is
/// inflated from a copy of the reader's inflater, reading the file with
/// pread(2), into scratch space, so its CRC-32 and length are known good
/// before any of its bytes go on; the reader's own inflater is left where it was.
/// Its reads pause as any read does (`ReadPacing`): `proceed` then returns
/// `.paused`, and called again goes on where it stood.
final class GzipMemberCheck {
    static let scratchBytes = 256 * 1024

    enum Outcome {
        /// The rest of the member is intact.
        case intact
        /// It is not: why, at the damage.
        case damaged(InputError)
        /// A read paused: call `proceed` again.
        case paused
    }

    /// The copy of the reader's inflater (nil: out of memory).
    private let copy: GzipInflater?
    private let upstream: FileByteSource
    private let memberStart: Int
    @exclusivity(unchecked) private var offset: Int
    @exclusivity(unchecked) private var fileOffset: Int

    /// `compressedOffset` is where the reader's inflater stands in the file; the
    /// bytes after its unconsumed input are read from the file itself.
    init(of inflater: GzipInflater, compressedOffset: Int, memberStart: Int, upstream: FileByteSource) {
        copy = inflater.copy(inputBytes: Self.scratchBytes)
        self.upstream = upstream
        self.memberStart = memberStart
        offset = compressedOffset
        fileOffset = compressedOffset + inflater.pendingInput
    }

    /// Inflates the rest of the member ahead, to its end, its damage, or a read that pauses.
    func proceed() throws -> Outcome {
        guard let copy else {
            return .damaged(InputError.corruptGzip(path: upstream.path, offset: offset, message: "out of memory checking a gzip member"))
        }
        while true {
            if copy.pendingInput == 0 {
                let n = try copy.refill { try upstream.readAhead(into: $0, at: fileOffset) }
                if n == ReadPacing.paused { return .paused }
                if n == 0 {
                    return .damaged(InputError.corruptGzip(path: upstream.path, offset: fileOffset,
                                                           message: "unexpected end of gzip data (truncated file)"))
                }
                fileOffset += n
            }
            let step = copy.inflate().step
            offset += step.consumed
            switch step.status {
            case .memberEnd: return .intact
            case .progress, .stalled: continue
            case let .failed(message):
                return .damaged(Self.error(message: message, path: upstream.path, memberStart: memberStart, offset: offset))
            }
        }
    }

    /// The error for a failed inflate: a trailer that does not match names the
    /// member (the damage is somewhere in it), anything else the byte where inflate stopped.
    static func error(message: String, path: String, memberStart: Int, offset: Int) -> InputError {
        switch message {
        case "incorrect data check":
            return .corruptGzip(path: path, offset: memberStart,
                                message: "the gzip member at compressed bytes \(memberStart)-\(offset) fails its CRC-32 check (its data was altered)")
        case "incorrect length check":
            return .corruptGzip(path: path, offset: memberStart,
                                message: "the gzip member at compressed bytes \(memberStart)-\(offset) fails its length check (its data was altered)")
        // zlib reads a header's fields before it judges them (its offset is past them): name the byte that is wrong,
        // so garbage after the last member is reported where it starts.
        case "incorrect header check":
            return .corruptGzip(path: path, offset: memberStart, message: message)
        case "unknown compression method":
            return .corruptGzip(path: path, offset: memberStart + 2, message: message)
        case "unknown header flags set":
            return .corruptGzip(path: path, offset: memberStart + 3, message: message)
        default:
            return .corruptGzip(path: path, offset: offset, message: message)
        }
    }
}
