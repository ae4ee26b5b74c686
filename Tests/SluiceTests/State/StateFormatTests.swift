@testable import Sluice
import SluiceJSON
import Testing

/// The `--state` file format: values, the header, the checksum, and the
/// checks that refuse a file from another version or another pipeline.
@Suite struct StateFormatTests {
    private let pipeline = "[{dedupe: {window: 1h}}, {timed: {}}, {session: {attach: {traits: [plan]}}}]"

    /// A state of the three stages after `count` generated events.
    private func state(_ yaml: String? = nil, count: Int = 400) -> [UInt8] {
        var run = StagePipeline(StateCase.stages(yaml ?? pipeline))
        run.feed(StateCase.events(count: count, seed: 9, devices: 20))
        return run.save(latest: EventTime(microseconds: 1_795_161_600_000_000))
    }

    private func restore(_ bytes: [UInt8], _ yaml: String? = nil) -> Result<StateFormat.Header, StateError> {
        var run = StagePipeline(StateCase.stages(yaml ?? pipeline))
        do throws(StateError) {
            return .success(try run.restore(bytes))
        } catch {
            return .failure(error)
        }
    }

    private func failure(_ bytes: [UInt8], _ yaml: String? = nil) -> StateError? {
        if case .failure(let error) = restore(bytes, yaml) { return error }
        return nil
    }

    /// The bytes with a new trailing CRC, as if a buggy writer had produced them.
    private func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let crc = bytes.withUnsafeBytes { StateChecksum.of(UnsafeRawBufferPointer(rebasing: $0[..<($0.count - 4)])) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((bytes.count - 4)..., with: $0) }
        return bytes
    }

    @Test func valuesRoundTripAtTheirEdges() {
        let writer = StateWriter(sourceNames: ["a.ndjson", "b.ndjson"])
        let unsigned: [UInt64] = [0, 1, 127, 128, 16383, 16384, UInt64(UInt32.max), UInt64.max]
        let signed: [Int64] = [0, -1, 1, 63, -64, 64, Int64.max, Int64.min]
        for value in unsigned { writer.varint(value) }
        for value in signed { writer.zigzag(value) }
        writer.u32(0xDEAD_BEEF)
        writer.i64(-5)
        writer.bytes([0, 1, 2])
        writer.string("Ünï")
        writer.origin(Origin(source: 1, line: 42))
        writer.origin(Origin(source: 1, line: 7))
        #expect(writer.sources == ["b.ndjson"], "only the sources used are listed")
        let bytes = writer.bytes
        bytes.withUnsafeBytes { raw in
            var reader = StateReader(raw, path: "t", sourceMap: [5])
            do throws(StateError) {
                for value in unsigned { #expect(try reader.varint() == value) }
                for value in signed { #expect(try reader.zigzag() == value) }
                #expect(try reader.u32() == 0xDEAD_BEEF)
                #expect(try reader.i64() == -5)
                #expect(try reader.bytes() == [0, 1, 2])
                #expect(try reader.string() == "Ünï")
                #expect(try reader.origin() == Origin(source: 5, line: 42))
                #expect(try reader.origin() == Origin(source: 5, line: 7))
                try reader.expectEnd("the test")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test(arguments: [
        ([0x80], "a number runs past"),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], "longer than 64 bits"),
        ([0x01, 0x05, 1, 2], "says 5 items but only 2 bytes"),
        ([0xC8, 0x01], "says 200 items"),
    ] as [([UInt8], String)])
    func aReaderRefusesWhatDoesNotFitInsteadOfCrashing(bytes: [UInt8], message: String) {
        bytes.withUnsafeBytes { raw in
            var reader = StateReader(raw, path: "t")
            do throws(StateError) {
                _ = try reader.count("the list")
                _ = try reader.bytes()
                Issue.record("read past the end")
            } catch {
                #expect(error.description.contains(message), "\(error)")
            }
        }
    }

    @Test func aStateRestoresTheHeaderItWasSavedWith() throws {
        let bytes = state()
        #expect(Array(bytes.prefix(8)) == Array("SLUICEST".utf8))
        let header = try restore(bytes).get()
        #expect(header.latestTime.microseconds == 1_795_161_600_000_000)
        #expect(header.carriedLines > 0, "the generated stream leaves timers open")
        #expect(header.sources == ["hour-08.ndjson"])
    }

    @Test func aPipelineWithoutStatefulStagesStillHasAValidState() throws {
        let bytes = state("[]")
        // Header, an index of empty lists, a time and a count, no pending lines (count, offset, length), the trailer.
        #expect(bytes.count == 12 + 16 + 12)
        #expect(try restore(bytes, "[]").get().carriedLines == 0)
    }

    @Test func anyChangedByteIsCaughtByTheChecksum() {
        let bytes = state()
        for position in stride(from: 12, to: bytes.count - 4, by: max(1, bytes.count / 97)) {
            var damaged = bytes
            damaged[position] ^= 0x10
            guard case .corrupt(_, let detail)? = failure(damaged) else {
                Issue.record("a flipped bit at \(position) was not caught")
                continue
            }
            #expect(detail.hasPrefix("checksum mismatch"))
        }
    }

    @Test(arguments: [0, 1, 7, 8, 11, 12, 23])
    func aFileCutShortIsCorrupt(length: Int) {
        let error = failure(Array(state().prefix(length)))
        guard case .corrupt(_, let detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("cut short"), "\(detail)")
    }

    @Test func aFileCutAnywhereIsCorrupt() {
        let bytes = state()
        for length in stride(from: 24, to: bytes.count, by: max(1, bytes.count / 50)) {
            guard case .corrupt? = failure(Array(bytes.prefix(length))) else {
                Issue.record("cut at \(length) of \(bytes.count) was not refused")
                continue
            }
        }
    }

    @Test func somethingElseIsNotAStateFile() {
        #expect(failure(Array("{\"type\":\"track\"}\n".utf8)) == .notAStateFile(path: "test.state"))
    }

    @Test func anotherFormatVersionIsRefusedWithBothVersions() {
        var bytes = state()
        bytes[8] = 1
        let error = failure(bytes)
        #expect(error == .incompatibleVersion(path: "test.state", found: 1, supported: 4))
        #expect(error?.description.contains("state format 1; this sluice reads formats 2 to 4") == true)
    }

    /// The bytes without the index's last `count` bytes (before the trailer), as format `version`, resealed.
    private func dropIndexTail(_ bytes: [UInt8], _ count: Int, version: UInt8) -> [UInt8] {
        var old = Array(bytes[..<(bytes.count - 12 - count)]) + Array(bytes[(bytes.count - 12)...])
        old[8] = version
        return resealed(old)
    }

    /// How many bytes the pending lines take at the end of the index when there are none:
    /// a count of 0, the offset (the index's own: a varint), a length of 0.
    private func emptyPendingTail(_ bytes: [UInt8]) -> Int {
        let indexOffset = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: bytes.count - 12, as: UInt64.self) }
        var varint = 1
        while indexOffset >> (7 * varint) > 0 { varint += 1 }
        return 2 + varint
    }

    @Test func aFormat2StateIsReadAsOneWithoutDestinationMemories() throws {
        // Format 2 is format 3 without the destination memory list at the end of the index.
        let current = state()
        let tail = emptyPendingTail(current)
        #expect(current[current.count - 12 - tail - 1] == 0, "no memories: the list's count ends the index before the pending lines")
        let header = try restore(dropIndexTail(current, tail + 1, version: 2)).get()
        #expect(header.carriedLines == (try restore(current).get()).carriedLines)
        #expect(header.restoredMemories == 0)
    }

    @Test func aFormat3StateIsReadAsOneWithoutPendingLines() throws {
        // Format 3 is format 4 without the pending lines at the end of the index.
        let current = state()
        let header = try restore(dropIndexTail(current, emptyPendingTail(current), version: 3)).get()
        #expect(header.carriedLines == (try restore(current).get()).carriedLines)
        #expect(header.pending.isEmpty)
    }

    @Test func pendingLinesComeBackAsTheyWereReadWithTheirOrigins() throws {
        let lines = [#"{"type":"track","event":"a","anonymousId":"d","timestamp":"2026-11-20T08:00:00Z"}"#,
                     #"{ "type": "track", "event": "b", "anonymousId": "d", "timestamp": "2026-11-20T08:00:01Z" }"#]
        let events = lines.enumerated().map { index, line in
            Array(line.utf8).withUnsafeBufferPointer { try! Event.decode($0, origin: Origin(source: Int32(index), line: Int64(7 + index))).get() }
        }
        let writer = StateWriter(sourceNames: StateCase.sourceNames)
        StateFormat.encode(stages: [], pending: events, latestTime: .epoch, to: writer)
        var stages: [any Stage] = []
        let header = try writer.bytes.withUnsafeBytes { raw throws(StateError) in
            try StateFormat.decode(raw, path: "t", into: &stages, sourceBase: 5)
        }
        #expect(header.sources == StateCase.sourceNames)
        #expect(header.pending.map(\.origin) == [Origin(source: 5, line: 7), Origin(source: 6, line: 8)])
        // The line as its value's text: insignificant whitespace outside it is not kept.
        #expect(header.pending.map { String(decoding: $0.line, as: UTF8.self) } == lines)
    }

    @Test(arguments: [
        ([4, 0] + Array("plan".utf8), "a name without its value"),
        ([4, 0] + Array("plan".utf8) + [3, 0] + Array("{\"v".utf8), "is not JSON"),
        ([2, 0, 0x0A, 0x41, 2, 0] + Array("{}".utf8), "is not text"),
        ([9, 0, 1], "cut short"),
    ] as [([UInt8], String)])
    func aRememberedValueThatWouldNotDecodeOrNotBeJSONIsCorrupt(value: [UInt8], message: String) {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        // The memory would refuse nothing: its values are written here as a buggy or crafted file would hold them.
        let writer = StateWriter()
        writer.varint(1)
        writer.bool(false)
        writer.bytes(Array("dev-1".utf8))
        writer.bytes(value)
        let bytes = writer.bytes
        bytes.withUnsafeBytes { raw in
            var reader = StateReader(raw, path: "t")
            do throws(StateError) {
                try memory.restore(from: &reader)
                Issue.record("restored \(value)")
            } catch {
                #expect(error.description.contains(message), "\(error)")
            }
        }
        #expect(memory.count == 0)
    }

    @Test func aMemorySectionWithAnyBytesChangedIsRestoredOrRefusedNeverATrap() {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        for device in 0..<20 {
            let value = DeviceMemory.Pairs.encode([(Array("plan".utf8), Array("{\"value\":\"p\(device)\"}".utf8)),
                                                   (Array("company_id".utf8), Array("[\"acme\",\"c\(device)\"]".utf8))])
            Array("dev-\(device)".utf8).withSpan { _ = memory.set(value, isUser: device % 3 == 0, $0) }
        }
        let writer = StateWriter()
        StateFormat.encode(stages: [], memories: [StateFormat.Memory(name: "ga4", signature: "s", memory: memory)],
                           latestTime: .epoch, to: writer)
        let bytes = writer.bytes
        // The memory section is everything between the header and the index.
        let indexOffset = bytes.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: $0.count - 12, as: UInt64.self))) }
        var random = SeededRandom(seed: 7)
        var restored = 0, refused = 0
        for _ in 0..<3000 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                damaged[Int.random(in: 12..<indexOffset, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            damaged = resealed(damaged)
            let fresh = DeviceMemory(maxBytes: 1 << 20)
            var stages: [any Stage] = []
            do {
                _ = try damaged.withUnsafeBytes { raw throws(StateError) in
                    try StateFormat.decode(raw, path: "t", into: &stages, memories: [StateFormat.Memory(name: "ga4", signature: "s", memory: fresh)],
                                           sourceBase: 0)
                }
                restored += 1
            } catch {
                refused += 1
            }
        }
        #expect(restored + refused == 3000 && refused > 0)
    }

    @Test func aDestinationsMemoryIsRestoredInItsRecencyOrderUnderTheSameNameAndSignature() throws {
        let memory = DeviceMemory(maxBytes: 1 << 20)
        for device in 0..<5 {
            Array("dev-\(device)".utf8).withSpan { _ = memory.set(DeviceMemory.Pairs.encode([(Array("plan".utf8), Array("{\"value\":\"p\(device)\"}".utf8))]), isUser: device == 4, $0) }
        }
        Array("dev-0".utf8).withSpan { _ = memory.value(isUser: false, $0) }  // dev-0 becomes the most recent
        let writer = StateWriter()
        StateFormat.encode(stages: [], memories: [StateFormat.Memory(name: "ga4", signature: "ga4 user_properties", memory: memory)],
                           latestTime: .epoch, to: writer)
        let bytes = writer.bytes
        func restored(_ name: String, _ signature: String, maxBytes: Int = 1 << 20) throws -> (DeviceMemory, StateFormat.Header) {
            let fresh = DeviceMemory(maxBytes: maxBytes)
            var stages: [any Stage] = []
            let header = try bytes.withUnsafeBytes { raw throws(StateError) in
                try StateFormat.decode(raw, path: "t", into: &stages, memories: [StateFormat.Memory(name: name, signature: signature, memory: fresh)],
                                       sourceBase: 0)
            }
            return (fresh, header)
        }
        let (same, header) = try restored("ga4", "ga4 user_properties")
        #expect(header.restoredMemories == 1 && header.restoredDevices == 5 && same.count == 5)
        #expect(Array("dev-4".utf8).withSpan { same.value(isUser: true, $0) } != nil)
        #expect(Array("dev-4".utf8).withSpan { same.value(isUser: false, $0) } == nil, "a userId is not an anonymousId")
        // Room for two devices' entries: the two most recently used before the save are kept (dev-4, then dev-0).
        let entry = 5 + DeviceMemory.Pairs.encode([(Array("plan".utf8), Array("{\"value\":\"p0\"}".utf8))]).count + DeviceMemory.entryOverhead
        let (small, _) = try restored("ga4", "ga4 user_properties", maxBytes: 2 * entry)
        #expect(small.count == 2 && small.forgotten == 3)
        #expect(Array("dev-0".utf8).withSpan { small.value(isUser: false, $0) } != nil)
        #expect(Array("dev-4".utf8).withSpan { small.value(isUser: true, $0) } != nil)
        // Another name or another meaning: left out.
        #expect(try restored("ga4-eu", "ga4 user_properties").0.count == 0)
        #expect(try restored("ga4", "mixpanel {group_keys: []}").1.restoredMemories == 0)
    }

    @Test func anotherStageListIsAnotherPipeline() {
        let error = failure(state(), "[{dedupe: {window: 1h}}, {session: {attach: {traits: [plan]}}}]")
        guard case .differentPipeline(_, let detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail == "it was saved with the stages [dedupe, timed, session]; this pipeline has [dedupe, session]")
    }

    @Test func aSettingThatChangesTheMeaningIsAnotherPipeline() {
        let error = failure(state(), "[{dedupe: {window: 1h}}, {timed: {correlate: [sessionId]}}, {session: {attach: {traits: [plan]}}}]")
        guard case .differentPipeline(_, let detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("its timed stage (stage 2) was saved with {marker: timed, correlate: [timerId], on_abandoned: emit}"))
        #expect(detail.contains("this pipeline's has {marker: timed, correlate: [sessionId], on_abandoned: emit}"))
    }

    @Test func capsAndDurationsMayChangeBetweenRuns() throws {
        let changed = "[{dedupe: {window: 2h, max_ids: 500}}, {timed: {expire_after: 1h, max_open: 20}}, "
            + "{session: {inactivity: 10m, max_devices: 5, attach: {traits: [plan]}}}]"
        _ = try restore(state(), changed).get()
    }

    @Test func damageBehindAValidChecksumIsRefusedNotACrash() {
        // What a checksum cannot catch (a bug in a writer): every byte changed in
        // turn, resealed. Each must restore or be refused, never trap.
        let bytes = state(count: 150)
        var refused = 0
        var random = GeneratorRandom(seed: 4)
        for position in stride(from: 12, to: bytes.count - 4, by: max(1, bytes.count / 1500)) {
            var damaged = bytes
            damaged[position] = UInt8(truncatingIfNeeded: random.next())
            if case .failure = restore(resealed(damaged)) { refused += 1 }
        }
        #expect(refused > 0)
    }
}
