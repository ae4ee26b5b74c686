import SluiceJSON

/// A non-blank input line, decoded: an event for the stages, or a line
/// rejected at input with its reason; or none yet, the run's housekeeping
/// being due first (`ReadPacing`).
enum InputRecord {
    case event(Event)
    case rejected(RejectedLine)
    /// No line yet: a read paused for the run's housekeeping (`ReadPacing.due`).
    /// Asked again, the input goes on where it stood. Never held by a merge.
    case paused
}

/// What exact order's first read takes of a line (`InputLines.nextForSurvey`).
enum SurveyLine {
    /// Its event time when it is an event (nil for a line that is not), and its footprint when held.
    case line(time: Int64?, bytes: Int)
    /// No line yet: a read paused for the run's housekeeping.
    case paused
}

/// A line the input rejected (not JSON, no `type`, too long, cut short by a
/// shutdown): its bytes (a too-long line's first KiB only), where it came
/// from, why, and a too-long line's whole length.
struct RejectedLine {
    var bytes: [UInt8]
    var origin: Origin
    var rejection: Rejection
    var truncatedFrom: Int?
}

/// How every input of a run is opened and read: the line limit, the pacing
/// its reads pause at for the run's housekeeping (nil: they never pause),
/// whether a shutdown stops them, the parser's scratch space, shared by the
/// inputs (one thread reads them all), and the size of each input's buffers
/// (smaller when many are open at once).
struct InputReading {
    var maxLineBytes: Int
    var pacing: ReadPacing?
    /// False for what a run reads after its inputs (exact order's sorted runs
    /// and the in-order starts it reads again): read to the end whatever the
    /// stop, since their lines were counted as read already.
    var stoppable = true
    var scratch: JSONParseScratch
    var buffers: InputBuffers = .single

    init(maxLineBytes: Int, pacing: ReadPacing? = nil, scratch: JSONParseScratch, buffers: InputBuffers = .single) {
        self.maxLineBytes = maxLineBytes
        self.pacing = pacing
        self.scratch = scratch
        self.buffers = buffers
    }
}

/// One input being read: its lines decoded one by one, blank lines skipped
/// and counted, and what was read of it kept for `--stats`' `inputs`.
///
/// It opens its file when first read and lets go of it (the descriptor and
/// the read buffer) at its end or its error, so a merge of many files holds
/// only the ones still being read.
final class InputLines {
    /// The path, or `-` for stdin.
    let path: String
    /// The name in rejects, stats and the state: the path, or `<stdin>`.
    let name: String
    /// `Origin.source` of its lines.
    let source: Int32
    private let reading: InputReading
    @exclusivity(unchecked) private var reader: LineReader?
    /// `reader`, asked for each line without a retain: set with it when the
    /// input opens and ends, never while a line is being read.
    @exclusivity(unchecked) private var unretainedReader: Unretained<LineReader>?
    @exclusivity(unchecked) private var opened = false
    /// Whether reading it began (an input a stopped run never reached is not listed in `--stats`).
    var reached: Bool { opened }
    @exclusivity(unchecked) private(set) var finished = false
    /// Lines read, blank ones included: the last line's number.
    @exclusivity(unchecked) private(set) var lines: Int64 = 0
    /// Non-blank lines read (the run's `lines_in` is their sum over the inputs).
    @exclusivity(unchecked) private(set) var nonBlankLines = 0
    @exclusivity(unchecked) private(set) var blankLines = 0
    /// The event time (microseconds) of the last event read; `Int64.min` before
    /// the first. A line rejected at input has no time of its own: it goes with this one.
    @exclusivity(unchecked) private(set) var lastEventTime = Int64.min
    /// Why the input stopped early (it could not be opened, corrupt gzip, a read error).
    @exclusivity(unchecked) private(set) var error: InputError?
    @exclusivity(unchecked) private var bytesAtEnd = 0
    /// When set, every line read is summed into `lineChecksum` (exact order checks a second read against the first).
    @exclusivity(unchecked) var checksumsLines = false
    /// Every line's length so far, folded in order (with `checksumsLines`): a second read of
    /// the same file must give the same; `FileIdentity` tells whether its bytes were rewritten.
    @exclusivity(unchecked) private(set) var lineChecksum: UInt64 = 0
    /// Whether its bytes are in memory (a test case's events), not a file on disk.
    let isInMemory: Bool
    /// The last `next` returned `.paused`: a merge asks here rather than
    /// look into the record, which it moves on untouched.
    @exclusivity(unchecked) private(set) var lastPaused = false

    init(path: String, source: Int32, reading: InputReading) {
        self.path = path
        self.name = path == "-" ? "<stdin>" : path
        self.source = source
        self.reading = reading
        isInMemory = false
    }

    /// A part of a file read through `reader` (exact order's first read of a file in two halves).
    init(path: String, reader: LineReader, source: Int32, reading: InputReading) {
        self.path = path
        name = path
        self.source = source
        self.reading = reading
        isInMemory = false
        self.reader = reader
        unretainedReader = Unretained(reader)
        opened = true
    }

    /// The same file read from its start up to byte `end` (a newline's next byte): the first read's
    /// first half of a large plain file. Nil when it cannot be opened (the whole read then reports it).
    func firstPart(endingAt end: Int) -> InputLines? {
        guard let file = try? FileByteSource.open(path, pacing: reading.pacing, stoppable: reading.stoppable) else { return nil }
        file.limit = end
        let reader = LineReader(path: path, source: file, maxLineBytes: reading.maxLineBytes, readSize: InputBuffers.single.readBytes,
                                pacing: reading.pacing)
        return InputLines(path: path, reader: reader, source: source, reading: reading)
    }

    /// An input already in memory (a test case's events), read like a file.
    init(bytes: [UInt8], named name: String, source: Int32, reading: InputReading) {
        self.path = name
        self.name = name
        self.source = source
        self.reading = reading
        isInMemory = true
        let reader = LineReader(path: name, source: MemoryByteSource(bytes), maxLineBytes: reading.maxLineBytes,
                                readSize: reading.buffers.readBytes)
        self.reader = reader
        unretainedReader = Unretained(reader)
        opened = true
    }

    /// Bytes consumed from the file so far (compressed bytes for gzip).
    var bytes: Int { reader?.bytesConsumed ?? bytesAtEnd }

    /// What `--stats` lists for this input.
    var counts: InputCounts {
        var counts = InputCounts(path: name)
        counts.lines = lines
        counts.bytes = bytes
        counts.error = error?.description
        return counts
    }

    /// The next non-blank line, decoded (`.paused` when a read paused); nil at
    /// the end of the input. An input error (it cannot be opened, corrupt gzip, a failed read) ends the
    /// input, is kept in `error` and thrown; the next call returns nil.
    func next() throws -> InputRecord? {
        lastPaused = false
        guard let line = try nextNonBlankLine() else { return nil }
        switch line {
        case let .line(buffer, number):
            let origin = Origin(source: source, line: number)
            switch Event.decode(buffer, origin: origin, scratch: reading.scratch) {
            case .success(let event):
                lastEventTime = event.time.microseconds
                return .event(event)
            case .failure(let rejection):
                return .rejected(RejectedLine(bytes: Array(buffer), origin: origin, rejection: rejection))
            }
        case let .tooLong(preview, length, number):
            let rejection = Rejection(.lineTooLong, "the line has \(length) bytes; input.max_line_bytes is \(reading.maxLineBytes)")
            return .rejected(RejectedLine(bytes: preview, origin: Origin(source: source, line: number),
                                          rejection: rejection, truncatedFrom: length))
        case let .cutShort(buffer, number), let .damaged(buffer, number):
            let rejection: Rejection
            if case .cutShort = line {
                rejection = Rejection(.cutByShutdown, "reading stopped for a shutdown after \(buffer.count) bytes of this line")
            } else {
                rejection = Rejection(.corruptGzip, "this line is in a gzip member that is damaged (the error names it), or was cut by the damage")
            }
            return .rejected(RejectedLine(bytes: Array(buffer), origin: Origin(source: source, line: number),
                                          rejection: rejection))
        case .paused:
            lastPaused = true
            return .paused
        }
    }

    /// The date of the last line `nextForSurvey` read in place (`QuickTimestamp`).
    @exclusivity(unchecked) private var surveyDate = EventTime.DateMemo()

    /// What exact order's first read needs of the next line: its event time when it is an
    /// event (nil for a line that is not), and its footprint when held; nil at the end of the
    /// input. The time is read without parsing the line where it can be (`QuickTimestamp`).
    @inline(__always)
    func nextForSurvey() throws -> SurveyLine? {
        guard let line = try nextNonBlankLine() else { return nil }
        switch line {
        case let .line(buffer, number):
            // What holding it would take: its bytes and, about, its parsed index.
            let bytes = buffer.count * 2 + ReorderBuffer.recordOverhead
            if let time = QuickTimestamp.read(buffer, memo: &surveyDate) { return .line(time: time, bytes: bytes) }
            switch Event.decode(buffer, origin: Origin(source: source, line: number), scratch: reading.scratch) {
            case .success(let event): return .line(time: event.time.microseconds, bytes: ReorderBuffer.footprint(of: event))
            case .failure: return .line(time: nil, bytes: bytes)
            }
        case let .tooLong(preview, _, _):
            return .line(time: nil, bytes: preview.count + ReorderBuffer.recordOverhead)
        case let .cutShort(buffer, _), let .damaged(buffer, _):
            return .line(time: nil, bytes: buffer.count + ReorderBuffer.recordOverhead)
        case .paused:
            return .paused
        }
    }

    /// The next line that is not blank, as read, counted (blank ones skipped and counted) and,
    /// with `checksumsLines`, summed; `.paused` when a read paused; nil at the end. An input
    /// error ends the input, is kept in `error` and thrown.
    private func nextNonBlankLine() throws -> InputLine? {
        guard !finished else { return nil }
        do {
            if !opened { try open() }
            while let line = try unretainedReader!.with({ try $0.next() }) {
                switch line {
                case let .line(buffer, number), let .cutShort(buffer, number), let .damaged(buffer, number):
                    if checksumsLines { sumIntoChecksum(length: buffer.count) }
                    lines = number
                    // A cut or damaged line of only whitespace (or a `\r`) loses nothing: a blank line like any other.
                    if LineReader.isBlank(buffer) {
                        blankLines += 1
                        continue
                    }
                case let .tooLong(_, length, number):
                    if checksumsLines { sumIntoChecksum(length: length) }
                    lines = number
                case .paused:
                    return line
                }
                nonBlankLines += 1
                return line
            }
        } catch let failure as InputError {
            error = failure
            end()
            throw failure
        }
        end()
        return nil
    }

    private func sumIntoChecksum(length: Int) {
        // A polynomial over the lengths (each plus one): cheap, a line moved, cut or grown changes
        // the sum, and two parts' sums make the whole's (`combinedChecksum`).
        lineChecksum = lineChecksum &* Self.checksumFactor &+ UInt64(length) &+ 1
    }

    private static let checksumFactor: UInt64 = 0x100_0000_01B3

    /// The `lineChecksum` of a file's lines from those of its first part (`first`) and of the
    /// `lines` lines after it (`then`).
    static func combinedChecksum(_ first: UInt64, then: UInt64, lines: Int64) -> UInt64 {
        var power: UInt64 = 1, base = checksumFactor, exponent = lines
        while exponent > 0 {
            if exponent & 1 == 1 { power = power &* base }
            base = base &* base
            exponent >>= 1
        }
        return first &* power &+ then
    }

    /// Stops reading this input where it is (its reader is closed): what was
    /// not returned yet is never read, as for an input a stopped run did not reach.
    func abandon() {
        if !finished { end() }
    }

    private func open() throws {
        opened = true
        let reader = try LineReader.open(path, maxLineBytes: reading.maxLineBytes, pacing: reading.pacing,
                                         stoppable: reading.stoppable, buffers: reading.buffers)
        self.reader = reader
        unretainedReader = Unretained(reader)
    }

    private func end() {
        finished = true
        bytesAtEnd = reader?.bytesConsumed ?? bytesAtEnd
        unretainedReader = nil
        reader = nil
    }
}
