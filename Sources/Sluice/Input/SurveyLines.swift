/// What exact order's first read records of one input's lines (`OrderSurvey.Line`, 16 bytes
/// each), in chunks of a fixed size. Growing never moves what is recorded: an array grows by
/// doubling, copying its lines each time and touching new pages for them, about twice the memory
/// of the lines themselves in page faults (32 MB for a million lines, where these take 16 MB).
struct SurveyLines: Equatable {
    /// Lines a chunk holds (64 KiB of them).
    static let chunkShift = 12
    static let chunkSize = 1 << chunkShift

    /// The full chunks, then the one being filled.
    private var chunks: [[OrderSurvey.Line]] = []
    private var last: [OrderSurvey.Line] = []
    private(set) var count = 0

    init() {}

    init(_ lines: [OrderSurvey.Line]) {
        for line in lines { append(line) }
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ line: OrderSurvey.Line) {
        if last.count == SurveyLines.chunkSize {
            chunks.append(last)
            last = []
        }
        // The first chunk grows as an array does (an input of a few lines takes a few lines' room);
        // every later one is taken whole.
        if last.isEmpty && !chunks.isEmpty { last.reserveCapacity(SurveyLines.chunkSize) }
        last.append(line)
        count += 1
    }

    mutating func append(contentsOf other: SurveyLines) {
        other.forEach { append($0) }
    }

    subscript(index: Int) -> OrderSurvey.Line {
        let chunk = index >> SurveyLines.chunkShift
        return chunk < chunks.count ? chunks[chunk][index & (SurveyLines.chunkSize - 1)] : last[index & (SurveyLines.chunkSize - 1)]
    }

    /// Each line, in order.
    func forEach(_ body: (OrderSurvey.Line) throws -> Void) rethrows {
        for chunk in chunks {
            for line in chunk { try body(line) }
        }
        for line in last { try body(line) }
    }

    /// The lines as one array (tests).
    var all: [OrderSurvey.Line] {
        var lines: [OrderSurvey.Line] = []
        lines.reserveCapacity(count)
        forEach { lines.append($0) }
        return lines
    }

    static func == (a: SurveyLines, b: SurveyLines) -> Bool { a.all == b.all }
}
