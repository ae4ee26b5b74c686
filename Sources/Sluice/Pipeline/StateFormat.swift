// Unsafe code: `decode` reads a state file as an `UnsafeRawBufferPointer` (a
// mapped file, or an array), through `StateReader`, which checks every read
// against its end. The caller keeps the bytes alive for the call.

/// The layout of a `--state` file: a versioned header, one section per
/// stateful stage (written by the stage itself) and one per destination
/// that remembers devices (`DeviceMemory`), an index, and a CRC-32.
///
/// ```
/// offset 0   "SLUICEST"                       magic (8 bytes)
///        8   format version                   u32, little-endian (this is 4; 3 kept no pending lines;
///                                             2, read too, kept no destination memories; 1 kept no consent marks)
///       12   sections                         each stage's bytes, then each destination memory's,
///                                             then the pending lines (each: origin, bytes)
///            index:
///              stage list                     count, then each stage's name: the whole pipeline, in order
///              latest event time              i64 µs (dates rejects files as one long run would)
///              carried lines                  u64: lines the stages hold (timers), checked at restore
///              sources                        count, then names: the inputs carried lines came from
///              sections                       count, then each: position, name, signature, offset, length
///              memories                       count, then each: destination, signature, offset, length
///              pending lines                  count, offset, length: lines exact order left for the next run
///   end-12   index offset                     u64
///   end-4    CRC-32 (zlib) of every byte before it
/// ```
/// Counts and offsets in the index are varints; names are length-prefixed
/// UTF-8. The index goes last so sections stream to disk as they are encoded.
/// A section is found by the stage's position *and* name, and is only read
/// into a stage whose `stateSignature` is the one it was saved under. A
/// destination's memory is restored into the destination of the same name
/// whose memory has the same signature; otherwise it is left out (it is what
/// the destination learned of devices, not lines: the destination starts
/// without it, as on a first run).
enum StateFormat {
    static let magic: [UInt8] = Array("SLUICEST".utf8)
    static let version = StateVersion.current
    /// The earliest version still read.
    static let oldestReadable = StateVersion.oldestReadable
    static let headerSize = 12
    static let trailerSize = 12

    /// What the file says beyond the stages' sections.
    struct Header: Equatable {
        /// The latest event time the run had seen.
        var latestTime: EventTime
        /// Lines the stages held at the end (their `heldLines`): the next run's `carried_in`.
        var carriedLines: Int
        /// The inputs the carried lines came from; the next run adds them to its sources.
        var sources: [String]
        /// The size of the file.
        var fileBytes = 0
        /// Destinations whose device memory was restored, and the devices it held.
        var restoredMemories = 0
        var restoredDevices = 0
        /// Lines an exact-order run left unprocessed for the next one to order with its own
        /// (within the stages' lateness of its latest event), as read, with their origins.
        var pending: [PendingLine] = []
    }

    /// A line left pending, as read, and where it was read.
    struct PendingLine: Equatable {
        var origin: Origin
        var line: [UInt8]
    }

    /// A destination's device memory as the state file keeps it.
    typealias Memory = NamedDeviceMemory

    private struct Section {
        var position: Int
        var name: String
        var signature: String
        var range: Range<Int>
    }

    // MARK: - Writing

    /// Writes the whole file through `writer`: header, each stateful stage's section, index, trailer.
    static func encode(stages: [any Stage], memories: [Memory] = [], pending: [Event] = [], latestTime: EventTime,
                       to writer: StateWriter) {
        writer.raw(magic)
        writer.u32(version)
        var sections: [Section] = []
        var carried = 0
        for (position, stage) in stages.enumerated() {
            guard let stage = stage as? any StatefulStage else { continue }
            let start = writer.offset
            stage.saveState(to: writer)
            carried += stage.heldLines
            sections.append(Section(position: position, name: stage.name, signature: stage.stateSignature,
                                    range: Int(start)..<Int(writer.offset)))
        }
        var memorySections: [(name: String, signature: String, range: Range<Int>)] = []
        for memory in memories {
            let start = writer.offset
            memory.memory.save(to: writer)
            memorySections.append((memory.name, memory.signature, Int(start)..<Int(writer.offset)))
        }
        let pendingStart = writer.offset
        for event in pending {
            writer.origin(event.origin)
            event.document.withRawBytes(0) { writer.bytes($0) }
        }
        let pendingRange = Int(pendingStart)..<Int(writer.offset)
        let indexOffset = writer.offset
        writer.varint(stages.count)
        for stage in stages { writer.string(stage.name) }
        writer.i64(latestTime.microseconds)
        writer.varint(carried)
        let sources = writer.sources
        writer.varint(sources.count)
        for source in sources { writer.string(source) }
        writer.varint(sections.count)
        for section in sections {
            writer.varint(section.position)
            writer.string(section.name)
            writer.string(section.signature)
            writer.varint(section.range.lowerBound)
            writer.varint(section.range.count)
        }
        writer.varint(memorySections.count)
        for section in memorySections {
            writer.string(section.name)
            writer.string(section.signature)
            writer.varint(section.range.lowerBound)
            writer.varint(section.range.count)
        }
        writer.varint(pending.count)
        writer.varint(pendingRange.lowerBound)
        writer.varint(pendingRange.count)
        writer.u64(indexOffset)
        writer.u32(writer.checksum)
        writer.flush()
    }

    // MARK: - Reading

    /// Checks a state file's bytes and restores each stateful stage of `stages`
    /// (fresh ones) from its section. Origins of carried lines are mapped to
    /// the run's sources from `sourceBase` on, in the order of `Header.sources`.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, into stages: inout [any Stage], memories: [Memory] = [],
                       sourceBase: Int32) throws(StateError) -> Header {
        let size = bytes.count
        let head = Array(bytes.prefix(magic.count))
        guard head == magic else {
            if magic.starts(with: head) { throw .corrupt(path: path, detail: "the file is cut short: \(size) bytes") }
            throw .notAStateFile(path: path)
        }
        guard size >= headerSize else { throw .corrupt(path: path, detail: "the file is cut short: \(size) bytes") }
        let found = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self))
        guard (oldestReadable...version).contains(found) else {
            throw .incompatibleVersion(path: path, found: found, supported: version)
        }
        guard size >= headerSize + trailerSize else { throw .corrupt(path: path, detail: "the file is cut short: \(size) bytes") }
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: size - 4, as: UInt32.self))
        let computed = StateChecksum.of(UnsafeRawBufferPointer(rebasing: bytes[..<(size - 4)]))
        guard stored == computed else {
            throw .corrupt(path: path, detail: "checksum mismatch: the file records CRC-32 \(hex(stored)), its \(size) bytes give \(hex(computed))")
        }
        let indexOffset = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: size - trailerSize, as: UInt64.self))
        guard indexOffset >= UInt64(headerSize), indexOffset <= UInt64(size - trailerSize) else {
            throw .corrupt(path: path, detail: "the index offset \(indexOffset) is outside the file")
        }
        let sectionsEnd = Int(indexOffset)
        var index = StateReader(bytes, range: sectionsEnd..<(size - trailerSize), path: path)
        var savedStages: [String] = []
        for _ in 0..<(try index.count("the stage list")) { savedStages.append(try index.string()) }
        let latest = try index.i64()
        let carried = try index.int(in: 0...Int.max, "the carried line count")
        var sources: [String] = []
        for _ in 0..<(try index.count("the source list")) { sources.append(try index.string()) }
        var sections: [Section] = []
        for _ in 0..<(try index.count("the section list")) {
            let position = try index.int(in: 0...max(0, savedStages.count - 1), "a section's stage position")
            let name = try index.string()
            let signature = try index.string()
            let offset = try index.int(in: headerSize...sectionsEnd, "a section's offset")
            let length = try index.int(in: 0...(sectionsEnd - offset), "a section's length")
            guard savedStages.indices.contains(position), savedStages[position] == name else {
                throw index.corrupt("a section for \(name) sits at stage \(position + 1), which is not \(name)")
            }
            sections.append(Section(position: position, name: name, signature: signature, range: offset..<(offset + length)))
        }
        var savedMemories: [(name: String, signature: String, range: Range<Int>)] = []
        if found >= 3 {
            for _ in 0..<(try index.count("the destination memory list")) {
                let name = try index.string()
                let signature = try index.string()
                let offset = try index.int(in: headerSize...sectionsEnd, "a destination memory's offset")
                let length = try index.int(in: 0...(sectionsEnd - offset), "a destination memory's length")
                savedMemories.append((name, signature, offset..<(offset + length)))
            }
        }
        var pendingCount = 0
        var pendingRange = sectionsEnd..<sectionsEnd
        if found >= 4 {
            pendingCount = try index.int(in: 0...Int(Int32.max), "the pending line count")
            let offset = try index.int(in: headerSize...sectionsEnd, "the pending lines' offset")
            let length = try index.int(in: 0...(sectionsEnd - offset), "the pending lines' length")
            pendingRange = offset..<(offset + length)
        }
        try index.expectEnd("the index")

        let names = stages.map(\.name)
        guard savedStages == names else {
            throw .differentPipeline(path: path, detail: "it was saved with the stages [\(savedStages.joined(separator: ", "))]; "
                + "this pipeline has [\(names.joined(separator: ", "))]")
        }
        let sourceMap = sources.indices.map { sourceBase + Int32($0) }
        var restoredSections = 0
        for position in stages.indices {
            guard var stage = stages[position] as? any StatefulStage else { continue }
            guard let section = sections.first(where: { $0.position == position }) else {
                throw .differentPipeline(path: path, detail: "it holds no state for the \(stage.name) stage (stage \(position + 1)), which keeps state in this sluice")
            }
            guard section.signature == stage.stateSignature else {
                throw .differentPipeline(path: path, detail: "its \(stage.name) stage (stage \(position + 1)) was saved with \(section.signature); "
                    + "this pipeline's has \(stage.stateSignature), which changes what the saved state means")
            }
            var reader = StateReader(bytes, range: section.range, path: path, sourceMap: sourceMap)
            try stage.restoreState(from: &reader)
            try reader.expectEnd("the \(stage.name) section")
            stages[position] = stage
            restoredSections += 1
        }
        guard restoredSections == sections.count else {
            throw .differentPipeline(path: path, detail: "it holds state for a stage that keeps none in this sluice")
        }
        let held = stages.reduce(0) { $0 + (($1 as? any StatefulStage)?.heldLines ?? 0) }
        guard held == carried else {
            throw .corrupt(path: path, detail: "the index says \(carried) lines are carried but the stages hold \(held)")
        }
        var header = Header(latestTime: EventTime(microseconds: latest), carriedLines: carried, sources: sources, fileBytes: size)
        var pendingReader = StateReader(bytes, range: pendingRange, path: path, sourceMap: sourceMap)
        for _ in 0..<pendingCount {
            let origin = try pendingReader.origin()
            header.pending.append(PendingLine(origin: origin, line: try pendingReader.bytes()))
        }
        try pendingReader.expectEnd("the pending lines")
        for memory in memories {
            guard let saved = savedMemories.first(where: { $0.name == memory.name && $0.signature == memory.signature }) else { continue }
            var reader = StateReader(bytes, range: saved.range, path: path)
            try memory.memory.restore(from: &reader)
            try reader.expectEnd("destination \(memory.name)'s memory")
            header.restoredMemories += 1
            header.restoredDevices += memory.memory.count
        }
        return header
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
