// Unsafe code: inflated bytes go into the caller's
// `UnsafeMutableRawBufferPointer` (the line reader's buffer) through
// `GzipInflater`, which wraps zlib's C API, so each byte is written once. Each
// step is given the room left (`out[produced...]`); no pointer is kept.

/// Inflates gzip data from another source on the fly, multi-member files included
/// (each member is a complete gzip stream; `cat a.gz b.gz` is valid gzip).
///
/// No byte of a member is handed on before the member's CRC-32 and length
/// are checked (a flipped bit can inflate to other, well-formed text). A
/// member's bytes are held (`GzipMemberHold`) until its trailer is read; when
/// a member outgrows `fileHoldBytes` in a regular file, the rest of the
/// member is inflated ahead from the file to check it (`GzipMemberCheck`),
/// and its bytes then go on as they are inflated a second time; on a pipe,
/// which cannot be read ahead, the hold goes on to a temporary file.
///
/// A member that fails (its check, inflate, or the data ends inside it) hands
/// out what it inflated to with `lastReadDamaged` set, so each of its lines
/// is rejected rather than delivered, then the read throws the error.
///
/// Inflates through a `GzipInflater`, which reads the compressed bytes from
/// `upstream`. When an upstream read pauses (`ReadPacing`), so does this
/// read, with every member, hold and check where it stood: called again, it
/// goes on from there.
final class GzipByteSource: ByteSource {
    private let upstream: FileByteSource
    private let inflater: GzipInflater
    private let hold: GzipMemberHold
    @exclusivity(unchecked) private var upstreamEnded = false
    /// True between the end of one member and the first byte of the next.
    @exclusivity(unchecked) private var betweenMembers = false
    /// Compressed bytes inflate consumed, from the start of the file.
    @exclusivity(unchecked) private var compressedOffset = 0
    /// Where the current member starts in the file.
    @exclusivity(unchecked) private var memberStart = 0
    /// The current member was checked ahead: its bytes go on as they are inflated.
    @exclusivity(unchecked) private var memberChecked = false
    /// Why the current member is damaged: what is handed out now is damaged, then this is thrown.
    @exclusivity(unchecked) private var damage: InputError?
    /// After a check ahead found damage, the member is inflated on to the damage as damaged bytes.
    @exclusivity(unchecked) private var damagedInflating = false
    @exclusivity(unchecked) private(set) var lastReadDamaged = false
    /// The hold's bytes may go out: their member's trailer matched, the rest of
    /// it was checked ahead, or it is damaged (they go out marked so).
    @exclusivity(unchecked) private var holdReady = false
    /// The check ahead of the current member, under way (its reads pause as any read does).
    @exclusivity(unchecked) private var memberCheck: GzipMemberCheck?

    var bytesConsumed: Int { upstream.bytesConsumed }
    /// The memory the member hold's pages may take now.
    var holdResidentBytes: Int { hold.residentBytes }
    var isRegularFile: Bool { upstream.isRegularFile }
    func finishLineAfterStop() { upstream.finishLineAfterStop() }

    /// Compressed bytes read at a time, for an input read on its own.
    static let chunkSize = InputBuffers.single.readBytes
    /// How much of a member a regular file holds before checking the rest of it ahead.
    static let fileHoldBytes = InputBuffers.single.fileHoldBytes
    /// How much of a member a pipe holds in memory; beyond it, in a temporary file.
    static let pipeHoldBytes = InputBuffers.single.pipeHoldBytes

    /// `buffers`: how many compressed bytes are read at a time, and how much
    /// of a member is held in memory (`fileHoldBytes` in a regular file, else
    /// `pipeHoldBytes`).
    init(upstream: FileByteSource, buffers: InputBuffers = .single) {
        self.upstream = upstream
        inflater = GzipInflater(inputBytes: buffers.readBytes)
        hold = GzipMemberHold(memoryLimit: upstream.isRegularFile ? buffers.fileHoldBytes : buffers.pipeHoldBytes,
                              path: upstream.path)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            lastReadDamaged = damage != nil
            if holdReady {
                if hold.pending > 0 { return try hold.handOut(into: buffer) }
                holdReady = false
                hold.clear()
            }
            if let damage {
                if damagedInflating {
                    switch try inflateSome(into: buffer) {
                    case let .produced(n) where n > 0: return n
                    case let .failed(_, n) where n > 0:
                        damagedInflating = false
                        return n
                    case .paused: return ReadPacing.paused
                    default: damagedInflating = false
                    }
                }
                throw damage
            }
            if memberChecked {
                switch try inflateSome(into: buffer) {
                case let .produced(n):
                    return n
                case let .memberEnd(n):
                    memberChecked = false
                    if n > 0 { return n }
                case .inputEnd:
                    return 0
                case let .failed(error, _):
                    // The file changed after its check: what inflated of it is not handed on.
                    damage = error
                case .paused:
                    return ReadPacing.paused
                }
                continue
            }
            switch try fillHold() {
            case .ready: continue
            case .ended: return 0
            case .paused: return ReadPacing.paused
            }
        }
    }

    private enum Fill {
        case ready
        case ended
        case paused
    }

    /// Inflates the current member into the hold until its trailer matched,
    /// it failed, or memory is full (then the hold is ready to go out);
    /// `.ended` at the end of the input. A stop (`InputStopped`) or a pause
    /// while it inflates leaves the hold as it is, not ready: the next read
    /// goes on filling it (after a stop, a check ahead starts over).
    private func fillHold() throws -> Fill {
        while true {
            guard let room = hold.room() else {
                if upstream.isRegularFile {
                    let check = memberCheck ?? GzipMemberCheck(of: inflater, compressedOffset: compressedOffset,
                                                               memberStart: memberStart, upstream: upstream)
                    memberCheck = check
                    let outcome: GzipMemberCheck.Outcome
                    do {
                        outcome = try check.proceed()
                    } catch {
                        memberCheck = nil
                        throw error
                    }
                    switch outcome {
                    case .paused:
                        return .paused
                    case .intact:
                        memberChecked = true
                    case let .damaged(failure):
                        damage = failure
                        damagedInflating = true
                    }
                    memberCheck = nil
                    holdReady = true
                    return .ready
                }
                try hold.spillMemory()
                continue
            }
            switch try inflateSome(into: room) {
            case let .produced(n):
                hold.commit(n)
            case let .memberEnd(n):
                hold.commit(n)
                holdReady = true
                return .ready
            case .inputEnd:
                return .ended
            case let .failed(error, n):
                hold.commit(n)
                damage = error
                holdReady = true
                return .ready
            case .paused:
                return .paused
            }
        }
    }

    private enum Step {
        case produced(Int)
        case memberEnd(Int)
        case inputEnd
        case failed(InputError, produced: Int)
        /// An upstream read paused before any bytes came.
        case paused
    }

    /// Inflates into `out` until some bytes come, the member ends, the input
    /// ends between members, the data fails, or an upstream read pauses.
    private func inflateSome(into out: UnsafeMutableRawBufferPointer) throws -> Step {
        var produced = 0
        while true {
            if inflater.pendingInput == 0 {
                if upstreamEnded {
                    if betweenMembers { return .inputEnd }
                    return .failed(InputError.corruptGzip(path: upstream.path, offset: compressedOffset,
                                                          message: "unexpected end of gzip data (truncated file)"), produced: produced)
                }
                let n = try inflater.refill({ try upstream.read(into: $0) })
                // Bytes produced are returned before any read: none are lost to a pause.
                if n == ReadPacing.paused { return .paused }
                if n == 0 {
                    upstreamEnded = true
                    continue
                }
            }
            if betweenMembers {
                betweenMembers = false
                inflater.nextMember()
                memberStart = compressedOffset
            }
            let step = inflater.inflate(into: UnsafeMutableRawBufferPointer(rebasing: out[produced...]))
            produced += step.produced
            compressedOffset += step.consumed
            switch step.status {
            case .progress, .stalled:
                if produced > 0 { return .produced(produced) }
            case .memberEnd:
                betweenMembers = true
                return .memberEnd(produced)
            case let .failed(message):
                let error = GzipMemberCheck.error(message: message, path: upstream.path, memberStart: memberStart,
                                                  offset: compressedOffset)
                return .failed(error, produced: produced)
            }
        }
    }

    func close() { upstream.close() }
}
