/// What exact order's first read records of one input's lines (`OrderSurvey.Line`, 16 bytes
/// each), in chunks. Growing never moves what is recorded: an array grows by doubling, copying
/// its lines each time and touching new pages for them, about twice the memory of the lines
/// themselves in page faults (32 MB for a million lines, where these take 16 MB). Lines recorded
/// apart (the second half of a file, read on another thread) join as chunks, uncopied.
struct SurveyLines: Equatable, Sequence {
    /// Lines a chunk holds when it is filled here (64 KiB of them); a joined one may hold fewer.
    static let chunkShift = 12
    static let chunkSize = 1 << chunkShift

    /// The chunks before the one being filled, each not empty.
    private var chunks: [[OrderSurvey.Line]] = []
    private var last: [OrderSurvey.Line] = []
    private(set) var count = 0

    init() {}

    init(_ lines: [OrderSurvey.Line]) {
        for line in lines { append(line) }
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ line: OrderSurvey.Line) {
        if last.count == SurveyLines.chunkSize {
            chunks.append(last)
            last = []
        }
        // The first chunk grows as an array does (an input of a few lines takes a few lines' room),
        // and so does one joined short (`append(contentsOf:)`); every other is taken whole.
        if last.isEmpty && !chunks.isEmpty { last.reserveCapacity(SurveyLines.chunkSize) }
        last.append(line)
        count += 1
    }

    /// Adds `other`'s lines after these: its chunks are taken as they are.
    mutating func append(contentsOf other: SurveyLines) {
        guard !other.isEmpty else { return }
        if !last.isEmpty { chunks.append(last) }
        chunks.append(contentsOf: other.chunks)
        last = other.last
        count += other.count
    }

    /// Gives the lines at the start whose time is `Int64.min` (lines that are not events, before
    /// the first event: a part read apart does not know the event before it) the time `time`.
    mutating func setLeadingTimes(_ time: Int64) {
        func set(_ chunk: inout [OrderSurvey.Line]) -> Bool {
            for index in chunk.indices {
                guard chunk[index].time == .min else { return false }
                chunk[index].time = time
            }
            return true
        }
        for index in chunks.indices {
            guard set(&chunks[index]) else { return }
        }
        _ = set(&last)
    }

    struct Iterator: IteratorProtocol {
        private let chunks: [[OrderSurvey.Line]]
        /// The chunk being read (`chunks`, then the last one), its place, and where it is read.
        private var current: [OrderSurvey.Line]
        private var chunk = 0, index = 0

        init(_ lines: SurveyLines) {
            chunks = lines.chunks + [lines.last]
            current = chunks[0]
        }

        @inline(__always)
        mutating func next() -> OrderSurvey.Line? {
            while index == current.count {
                guard chunk + 1 < chunks.count else { return nil }
                chunk += 1
                current = chunks[chunk]
                index = 0
            }
            index += 1
            return current[index - 1]
        }
    }

    func makeIterator() -> Iterator { Iterator(self) }

    var underestimatedCount: Int { count }

    /// The lines as one array (tests).
    var all: [OrderSurvey.Line] { Array(self) }

    static func == (a: SurveyLines, b: SurveyLines) -> Bool { a.count == b.count && a.elementsEqual(b) }
}
