// Unsafe code: `run` hands each ~64 KiB chunk to its sink as an
// `UnsafeRawBufferPointer` (`withUnsafeBytes` over the chunk array), so the
// sink can write(2) it without a copy. The pointer is valid only for the sink
// call; the array is cleared after it returns.

/// What `sluice generate` writes: the options of workload/gen_events.py.
public struct GeneratorOptions: Sendable, Equatable {
    /// How many lines to write (duplicates, late and broken lines included).
    public var events: Int = 100_000
    public var seed: UInt64 = 1
    /// Concurrent devices; 0 = max(10, events / 50); at most `maxDevices` (each holds its own state).
    public var devices: Int = 0
    public static let maxDevices = 10_000_000
    /// Event time of the stream's first message.
    public var start: EventTime = EventTime.parseISO8601("2026-11-20T08:00:00Z")!
    /// Share of events re-sent with the same messageId (the same line twice in a row).
    public var duplicates: Double = 0.005
    /// Share of events delivered up to ~2000 lines later (late in event time).
    public var late: Double = 0.01
    /// Share of broken lines.
    public var malformed: Double = 0.0

    public init() {}
}

/// A deterministic stream of app analytics events as NDJSON (docs/input-format.md): the Swift port
/// of workload/gen_events.py.
///
/// Many devices interleaved, each living through sessions (launch, optional sign-in,
/// screens, taps, timed flows), with the mess real logs carry: duplicates, late
/// events, PII in free text, names some providers refuse, opted-out users, numbers
/// beyond 2^53 and, optionally, broken lines. The same options give the same bytes on
/// every machine (the PRNG is our own); the stream has the Python's shape, not its bytes.
public struct EventGenerator {
    static let chunkSize = 64 * 1024

    private let options: GeneratorOptions

    public init(options: GeneratorOptions) {
        self.options = options
    }

    /// Writes exactly `options.events` lines (each ending in "\n"), calling `sink` with chunks of about 64 KiB.
    ///
    /// Every call writes the stream from its start, so two runs give the same bytes.
    public mutating func run(_ sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var stream = GeneratorStream(options: options)
        var out: [UInt8] = []
        out.reserveCapacity(Self.chunkSize + 128 * 1024)
        while stream.next(into: &out) {
            if out.count >= Self.chunkSize {
                try out.withUnsafeBytes { try sink($0) }
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty {
            try out.withUnsafeBytes { try sink($0) }
        }
    }
}

/// The state of one run: the stream's clock, the devices, and the lines held back to arrive late.
struct GeneratorStream {
    private let options: GeneratorOptions
    private var random: GeneratorRandom
    private var devices: [GeneratedDevice]
    private var time: EventTime
    private var written = 0
    private var late = LateLines()
    private var burst = BurstLines()
    private var broken: [UInt8] = []
    static let maxHeldLines = 4000

    init(options: GeneratorOptions) {
        self.options = options
        var random = GeneratorRandom(seed: options.seed)
        let count = options.devices > 0 ? min(options.devices, GeneratorOptions.maxDevices)
            : max(10, min(options.events / 50, GeneratorOptions.maxDevices))
        var devices: [GeneratedDevice] = []
        devices.reserveCapacity(count)
        for index in 0..<count {
            devices.append(GeneratedDevice(index: index, random: GeneratorRandom(seed: random.next())))
        }
        self.random = random
        self.devices = devices
        self.time = options.start
    }

    /// Appends the lines of one more burst of activity to `out`; false once every line is written.
    mutating func next(into out: inout [UInt8]) -> Bool {
        let total = options.events
        guard written < total else { return false }
        time = EventTime(microseconds: time.microseconds + Int64(random.int(1, 40)) * 1000)
        let index = random.below(devices.count)
        let at = max(time, devices[index].clock ?? time)
        burst.reset()
        devices[index].burst(at: at, into: &burst)

        var start = 0
        for end in burst.ends {
            defer { start = end }
            if written >= total { break }
            let line: ArraySlice<UInt8>
            if options.malformed > 0 && random.chance(options.malformed) {
                breakLine(burst.buffer.bytes[start..<end])
                line = broken[...]
            } else {
                line = burst.buffer.bytes[start..<end]
            }
            if options.late > 0 && random.chance(options.late) {
                late.push(due: written + random.int(10, 2000), line: Array(line))
                // Held lines fall due only as other lines are written, so with a late share
                // near 1 the Python never ends. The cap bounds that; it is not reached
                // below a share of about 0.8.
                if late.count > Self.maxHeldLines { write(late.pop()[...], to: &out) }
                continue
            }
            write(line, to: &out)
            if options.duplicates > 0 && random.chance(options.duplicates) && written < total {
                write(line, to: &out)
            }
            while let due = late.firstDue, due <= written, written < total {
                write(late.pop()[...], to: &out)
            }
        }
        // Lines still held back when the count is reached are never written (as in the Python).
        return true
    }

    @inline(__always)
    private mutating func write(_ line: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.append(contentsOf: line)
        out.append(0x0A)
        written += 1
    }

    /// Replaces a good line by one of six kinds of broken line, in `broken`.
    private mutating func breakLine(_ good: ArraySlice<UInt8>) {
        broken.removeAll(keepingCapacity: true)
        switch random.below(6) {
        case 0:  // truncated, at a character boundary so that it stays UTF-8
            var end = good.startIndex + max(1, good.count / 2)
            while end > good.startIndex + 1 && good[end] & 0xC0 == 0x80 { end -= 1 }
            broken.append(contentsOf: good[..<end])
        case 1:  // valid JSON, not an object
            broken.append(contentsOf: "[1,2,3]".utf8)
        case 2:  // a timestamp that is not a date
            let key = Array(#""timestamp":""#.utf8)
            broken.append(contentsOf: good)
            if let at = Self.firstIndex(of: key, in: broken) {
                broken.insert(contentsOf: "not-a-date ".utf8, at: at + key.count)
            }
        case 3:  // a number with 30 digits
            broken.append(contentsOf: #"{"type":"track","event":"#.utf8)
            broken.append(contentsOf: repeatElement(UInt8(ascii: "9"), count: 30))
            broken.append(UInt8(ascii: "}"))
        case 4:  // not UTF-8
            broken.append(contentsOf: [0xFF, 0xFE])
            broken.append(contentsOf: " garbage ".utf8)
            broken.append(0x00)
            broken.append(contentsOf: " line".utf8)
        default:  // a very long line
            broken.append(contentsOf: #"{"type":"track","event":""#.utf8)
            broken.append(contentsOf: repeatElement(UInt8(ascii: "x"), count: 70_000))
            broken.append(contentsOf: #""}"#.utf8)
        }
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }
}

/// Lines held back to be written later: a min-heap on (due line count, arrival order).
struct LateLines {
    private struct Entry {
        var due: Int
        var order: Int
        var line: [UInt8]

        @inline(__always)
        func precedes(_ other: Entry) -> Bool { due != other.due ? due < other.due : order < other.order }
    }

    private var heap: [Entry] = []
    private var pushed = 0

    var isEmpty: Bool { heap.isEmpty }

    var count: Int { heap.count }

    /// The line count at which the first held line is due, if any.
    var firstDue: Int? { heap.first?.due }

    mutating func push(due: Int, line: [UInt8]) {
        heap.append(Entry(due: due, order: pushed, line: line))
        pushed += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the first due line; the heap must not be empty.
    mutating func pop() -> [UInt8] {
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            var child = left
            if left + 1 < heap.count && heap[left + 1].precedes(heap[left]) { child = left + 1 }
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            parent = child
        }
        return first.line
    }
}
