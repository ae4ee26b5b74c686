#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// What a destination remembers of a device for the device's later events:
/// GA4 the user properties its `identify` messages set, Mixpanel the groups
/// its `group` messages joined. Per device (`DeviceKey`), as every stage's
/// state is, so a device's records are the same whichever shard it lands in.
///
/// Each device has one value: name and JSON pairs (`Pairs`), the
/// destination's own. The memory is bounded: entries take at most `maxBytes`
/// as counted (a value's and the id's bytes plus `entryOverhead`); beyond it the least
/// recently used device is forgotten (counted in `forgotten`). A look-up is
/// one hash of the device's id, a probe and a comparison of the id, and none
/// at all while the memory is empty. With `--state` it is saved at the end of
/// a run and restored at the start of the next (`save`, `restore`), so a
/// device's identify on Monday still reaches its events on Tuesday.
public final class DeviceMemory {
    /// What an entry costs besides its value's and its id's bytes: its record
    /// and arrays' headers (80 bytes) and its share of the index (4-byte buckets at ≤ 50% load).
    static let entryOverhead = 96

    private struct Entry: RecencyLinked {
        /// `DeviceKey.hash` of the id, and the id: whether it is a `userId`, and its text.
        var hash: UInt64
        var isUser: Bool
        var id: [UInt8]
        var value: [UInt8]
        /// Neighbours in recency order (-1 at the ends).
        var newer: Int32
        var older: Int32

        var size: Int { id.count + value.count + DeviceMemory.entryOverhead }
    }

    let maxBytes: Int
    @exclusivity(unchecked) private var entries: [Entry] = []
    /// Slots of forgotten entries, reused first.
    @exclusivity(unchecked) private var free: [Int32] = []
    @exclusivity(unchecked) private var index = LinearProbingIndex<UInt32>(bucketCount: 64)
    @exclusivity(unchecked) private var recency = RecencyList()
    /// Bytes as counted, of the entries held now.
    @exclusivity(unchecked) private(set) var bytes = 0
    /// Devices held now.
    @exclusivity(unchecked) private(set) var count = 0
    /// Devices forgotten to stay within `maxBytes`, so far.
    @exclusivity(unchecked) private(set) var forgotten = 0

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    @inline(__always)
    var isEmpty: Bool { count == 0 }

    /// The value remembered for the device of a message whose ids are at these
    /// nodes (`DeviceKey`'s rule), if any; it becomes the most recently used.
    func value(_ document: JSONDocument, anonymousId: Int?, userId: Int?) -> [UInt8]? {
        DeviceKey.withIDSpan(document, anonymousId: anonymousId, userId: userId) { isUser, text in
            value(isUser: isUser, text)
        } ?? nil
    }

    /// Remembers `value` for the device of a message, in place of what it had;
    /// forgets the least recently used devices while the entries take more
    /// than `maxBytes`. A value too large for the whole bound is not kept (false).
    @discardableResult
    func set(_ value: [UInt8], _ document: JSONDocument, anonymousId: Int?, userId: Int?) -> Bool {
        DeviceKey.withIDSpan(document, anonymousId: anonymousId, userId: userId) { isUser, text in
            set(value, isUser: isUser, text)
        } ?? false
    }

    func value(isUser: Bool, _ id: Span<UInt8>) -> [UInt8]? {
        guard let slot = find(DeviceKey.hash(isUser: isUser, id), isUser, id) else { return nil }
        touch(slot)
        return entries[Int(slot)].value
    }

    @discardableResult
    func set(_ value: [UInt8], isUser: Bool, _ id: Span<UInt8>) -> Bool {
        let hash = DeviceKey.hash(isUser: isUser, id)
        if let slot = find(hash, isUser, id) {
            bytes += value.count - entries[Int(slot)].value.count
            entries[Int(slot)].value = value
            touch(slot)
        } else {
            let entry = Entry(hash: hash, isUser: isUser, id: Array(copying: id), value: value, newer: -1, older: -1)
            guard entry.size <= maxBytes else { return false }
            let slot: Int32
            if let reused = free.popLast() {
                slot = reused
                entries[Int(slot)] = entry
            } else {
                slot = Int32(entries.count)
                entries.append(entry)
            }
            count += 1
            bytes += entry.size
            index.growIfNeeded(count: count) { entries[Int($0) - 1].hash }
            index.insert(UInt32(slot + 1), hash: hash)
            recency.linkNewest(slot, in: &entries)
        }
        while bytes > maxBytes, recency.oldest >= 0 { forget(recency.oldest) }
        return find(hash, isUser, id) != nil
    }

    private func find(_ hash: UInt64, _ isUser: Bool, _ id: Span<UInt8>) -> Int32? {
        index.first(hash: hash) { bucket in
            let entry = entries[Int(bucket) - 1]
            return entry.hash == hash && entry.isUser == isUser && ByteSpans.equal(entry.id.span, id)
        }.map { Int32(Int($0) - 1) }
    }

    private func forget(_ slot: Int32) {
        let entry = entries[Int(slot)]
        index.remove(UInt32(slot + 1), hash: entry.hash) { entries[Int($0) - 1].hash }
        recency.unlink(slot, in: &entries)
        bytes -= entry.size
        count -= 1
        forgotten += 1
        entries[Int(slot)].value = []
        entries[Int(slot)].id = []
        free.append(slot)
    }

    private func touch(_ slot: Int32) { recency.touch(slot, in: &entries) }

    /// Writes every device, least recently used first: its kind of id, the id and the value.
    func save(to writer: StateWriter) {
        writer.varint(count)
        for slot in recency.slotsByRecency(entries, count: count) {
            let entry = entries[Int(slot)]
            writer.bool(entry.isUser)
            writer.bytes(entry.id)
            writer.bytes(entry.value)
        }
    }

    /// Reads what `save` wrote into an empty memory, in the same recency order;
    /// beyond `maxBytes` (a smaller `device_memory` than the saving run's) the
    /// least recently used are forgotten, as they would have been.
    func restore(from reader: inout StateReader) throws(StateError) {
        let devices = try reader.count("a destination's remembered device count", minimumBytes: 3)
        for _ in 0..<devices {
            let isUser = try reader.bool()
            let id = try reader.bytes()
            let value = try reader.bytes()
            try DeviceMemory.checkPairs(value, reader)
            set(value, isUser: isUser, id.span)
        }
    }

    /// A restored value must decode as `Pairs` (name and JSON, their lengths
    /// within it), or reading it later would trap; its names must be text and
    /// its JSON whole (a value, or an object's member as GA4 keeps them), or
    /// the records it goes into would not be JSON.
    private static func checkPairs(_ value: [UInt8], _ reader: StateReader) throws(StateError) {
        guard let parts = Pairs.parts(value) else { throw reader.corrupt("a remembered value is cut short") }
        guard parts.count % 2 == 0 else { throw reader.corrupt("a remembered value has a name without its value") }
        for pair in stride(from: 0, to: parts.count, by: 2) {
            let name = parts[pair], json = parts[pair + 1]
            guard String(validating: name, as: UTF8.self) != nil, !name.contains(where: { $0 < 0x20 }) else {
                throw reader.corrupt("a remembered name is not text")
            }
            // As a member's value (`["acme"]`), or as a member (`"plan":{"value":"pro"}`): a document is an object.
            guard (try? JSONDocument.parse(Array("{\"v\":".utf8) + json + [UInt8(ascii: "}")])) != nil
                    || (try? JSONDocument.parse([UInt8(ascii: "{")] + json + [UInt8(ascii: "}")])) != nil else {
                throw reader.corrupt("a remembered value is not JSON")
            }
        }
    }
}

extension DeviceMemory {
    /// A remembered value: name and JSON pairs, each a 16-bit little-endian
    /// length and its bytes (GA4: a user property's name and `{"value":…}`;
    /// Mixpanel: a group key and its list of group ids).
    enum Pairs {
        static func encode(_ pairs: [(name: [UInt8], json: [UInt8])]) -> [UInt8] {
            var out: [UInt8] = []
            for (name, json) in pairs {
                append(name, to: &out)
                append(json, to: &out)
            }
            return out
        }

        /// Calls `body` with each pair, in order.
        static func forEach(_ value: [UInt8], _ body: (_ name: ArraySlice<UInt8>, _ json: ArraySlice<UInt8>) -> Void) {
            var position = 0
            while position < value.count {
                let name = next(value, &position)
                let json = next(value, &position)
                body(name, json)
            }
        }

        static func decode(_ value: [UInt8]) -> [(name: [UInt8], json: [UInt8])] {
            var pairs: [(name: [UInt8], json: [UInt8])] = []
            forEach(value) { pairs.append((Array($0), Array($1))) }
            return pairs
        }

        private static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
            precondition(bytes.count <= Int(UInt16.max), "a remembered name or value is at most 65535 bytes")
            out.append(UInt8(truncatingIfNeeded: bytes.count))
            out.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
            out.append(contentsOf: bytes)
        }

        /// Every name and JSON, in order, or nil when a length runs past the end (a value not written by `encode`).
        static func parts(_ value: [UInt8]) -> [ArraySlice<UInt8>]? {
            var parts: [ArraySlice<UInt8>] = []
            var position = 0
            while position < value.count {
                guard value.count - position >= 2,
                      value.count - position - 2 >= Int(value[position]) | Int(value[position + 1]) << 8 else { return nil }
                parts.append(next(value, &position))
            }
            return parts
        }

        private static func next(_ value: [UInt8], _ position: inout Int) -> ArraySlice<UInt8> {
            let length = Int(value[position]) | Int(value[position + 1]) << 8
            let start = position + 2
            position = start + length
            return value[start..<position]
        }
    }
}

extension DeviceMemory {
    /// `device_memory` when the pipeline file does not say (a size; `0` remembers nothing).
    static let defaultMaxBytes = 16 << 20

    /// Reads a destination's `device_memory` (a size such as `16MiB`, `0` for none).
    static func maxBytes(options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) -> Int {
        guard let node = options["device_memory"] else { return defaultMaxBytes }
        if node.scalar?.text == "0" { return 0 }
        return reader.size(node, what: "destinations.\(destination).device_memory") ?? defaultMaxBytes
    }
}
