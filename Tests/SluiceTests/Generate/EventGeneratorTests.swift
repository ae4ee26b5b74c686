import Foundation
import Testing
@testable import Sluice
@testable import SluiceJSON

@Suite struct EventGeneratorTests {
    private func options(
        events: Int, seed: UInt64 = 1, devices: Int = 0,
        duplicates: Double = 0.005, late: Double = 0.01, malformed: Double = 0
    ) -> GeneratorOptions {
        var options = GeneratorOptions()
        options.events = events
        options.seed = seed
        options.devices = devices
        options.duplicates = duplicates
        options.late = late
        options.malformed = malformed
        return options
    }

    private func generate(_ options: GeneratorOptions) -> [UInt8] {
        var generator = EventGenerator(options: options)
        var bytes: [UInt8] = []
        generator.run { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The lines without their "\n"; the stream must end in "\n" (or be empty).
    private func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// How many times `needle` occurs in `stream`. memchr for the needle's rarest byte, then
    /// memcmp: a plain loop or `String.contains` takes minutes on megabytes in a debug build.
    private func occurrences(of needle: String, in stream: [UInt8], frequencies: [Int]) -> Int {
        let needle = Array(needle.utf8)
        let anchor = needle.indices.min { frequencies[Int(needle[$0])] < frequencies[Int(needle[$1])] }!
        return stream.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needleBytes in
                let base = haystack.baseAddress!
                var count = 0
                var offset = anchor
                while offset < haystack.count,
                      let hit = memchr(base + offset, Int32(needle[anchor]), haystack.count - offset) {
                    let at = base.distance(to: UnsafeRawPointer(hit))
                    let start = at - anchor
                    if start + needle.count <= haystack.count,
                       memcmp(base + start, needleBytes.baseAddress!, needle.count) == 0 {
                        count += 1
                    }
                    offset = at + 1
                }
                return count
            }
        }
    }

    /// How many "\n" there are (memchr: a debug build is slow at megabytes of 70 kB lines).
    private func newlines(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var count = 0
            var offset = 0
            while offset < buffer.count, let hit = memchr(base + offset, 0x0A, buffer.count - offset) {
                count += 1
                offset = base.distance(to: UnsafeRawPointer(hit)) + 1
            }
            return count
        }
    }

    private func text(_ line: ArraySlice<UInt8>) -> String { String(decoding: line, as: UTF8.self) }

    private func decode(_ line: ArraySlice<UInt8>) -> Result<Event, Rejection> {
        Array(line).withUnsafeBufferPointer { Event.decode($0, origin: Origin(source: 0, line: 1)) }
    }

    private func string(_ event: Event, _ key: String) -> String? {
        event.document.member(key).flatMap { event.document.string($0) }
    }

    // MARK: - Determinism and size

    @Test func theSameOptionsGiveIdenticalBytes() {
        let options = options(events: 5000, seed: 42, duplicates: 0.02, late: 0.05, malformed: 0.02)
        #expect(generate(options) == generate(options))
    }

    @Test func runningTheSameGeneratorTwiceGivesIdenticalBytes() {
        var generator = EventGenerator(options: options(events: 2000))
        var first: [UInt8] = []
        var second: [UInt8] = []
        generator.run { first.append(contentsOf: $0) }
        generator.run { second.append(contentsOf: $0) }
        #expect(first == second)
    }

    @Test func aDifferentSeedGivesADifferentStream() {
        #expect(generate(options(events: 2000, seed: 1)) != generate(options(events: 2000, seed: 2)))
    }

    @Test(arguments: [0, 1, 2, 7, 100, 4321])
    func writesExactlyTheRequestedNumberOfLines(_ count: Int) {
        let bytes = generate(options(events: count, duplicates: 0.05, late: 0.1, malformed: 0.05))
        #expect(newlines(bytes) == count)
        #expect(bytes.last == (count == 0 ? nil : 0x0A))
    }

    @Test func writesExactlyNLinesWithEveryKindOfMessAtHighRates() {
        let bytes = generate(options(events: 3000, duplicates: 0.3, late: 0.3, malformed: 0.3))
        #expect(newlines(bytes) == 3000)
    }

    @Test func endsWithExactlyNLinesEvenWhenEveryLineIsLate() {
        let bytes = generate(options(events: 6000, duplicates: 1, late: 1))
        #expect(newlines(bytes) == 6000)
    }

    @Test func hasTheSinkCalledWithChunksOfAbout64KiB() {
        var generator = EventGenerator(options: options(events: 20000))
        var sizes: [Int] = []
        generator.run { sizes.append($0.count) }
        #expect(sizes.count > 10)
        #expect(sizes.dropLast().allSatisfy { $0 >= 64 * 1024 && $0 < 80 * 1024 })
        #expect(sizes.last.map { $0 > 0 && $0 < 80 * 1024 } == true)
    }

    // MARK: - Well-formed lines

    @Test func everyLineIsAValidEventWhenNothingIsMalformed() throws {
        let all = lines(generate(options(events: 20000, seed: 3, duplicates: 0.01, late: 0.02)))
        #expect(all.count == 20000)
        for line in all {
            _ = try JSONDocument.parse(Array(line))
            guard case .success = decode(line) else {
                Issue.record("rejected: \(text(line))")
                return
            }
        }
    }

    @Test func linesAreCompactWithTheKeysInThePythonOrder() {
        for line in lines(generate(options(events: 2000))) {
            let line = text(line)
            #expect(line.hasPrefix(#"{"type":""#))
            let keys = [#""messageId":"#, #""timestamp":"#, #""anonymousId":"#, #""context":{"app":{"#]
            let positions = keys.map { line.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            #expect(line.contains(#""locale":"en_US","timezone":"Europe/Berlin""#))
            #expect(!line.contains(": ") && !line.contains(", "))
        }
    }

    @Test func timestampsAreWhatEventTimeWritesAndStartAtTheStartOption() throws {
        var options = options(events: 3000)
        options.start = try #require(EventTime.parseISO8601("2027-02-28T23:59:59Z"))
        var earliest = EventTime(microseconds: .max)
        for line in lines(generate(options)) {
            guard case let .success(event) = decode(line), let stamp = string(event, "timestamp") else {
                Issue.record("no timestamp: \(text(line))")
                return
            }
            #expect(stamp == event.time.iso8601)
            #expect(stamp.count == 24 && stamp.hasSuffix("Z"))
            earliest = min(earliest, event.time)
        }
        #expect(earliest > options.start)
        #expect(earliest.microseconds - options.start.microseconds < 60_000_000)
    }

    // MARK: - The shapes of the stream

    @Test func theStreamHoldsEveryKindOfMessageTheReferenceWrites() {
        let stream = generate(options(events: 30000, seed: 9))
        var frequencies = [Int](repeating: 0, count: 256)
        stream.withUnsafeBufferPointer { for byte in $0 { frequencies[Int(byte)] += 1 } }
        func count(_ needle: String) -> Int { occurrences(of: needle, in: stream, frequencies: frequencies) }
        #expect(count(#"{"type":""#) == 30000)
        #expect(count("no such text") == 0)
        #expect(count(#"{"type":"session""#) > 100)
        #expect(count(#""action":"start","settings":{"voiceOver":"#) > 100)
        #expect(count(#"{"type":"identify""#) > 100)
        #expect(count(#""traits":{"email":""#) > 100)
        #expect(count(#""pushNotificationsEnabled":"#) > 100)
        #expect(count(#""phone":"+44 20 7946 "#) > 10)
        #expect(count(#"{"type":"screen""#) > 1000)
        #expect(count(#""properties":{"referrer":""#) > 1000)
        #expect(count(#""timed":"start""#) > 100)
        #expect(count(#""timed":"stop""#) > 100)
        #expect(count(#""timed":"stop","properties":{}"#) > 10)  // orphan stops
        #expect(count(#""timerId":"play-"#) > 10)
        #expect(count(#""event":"signed_out""#) > 10)
        #expect(count(#""userId":"user-"#) > 1000)
        for name in ["movie_tapped", "like_toggled", "search_submitted", "Notifications", "Profile Fields",
                     "purchase_completed", "message_deleted", "share_sheet_opened", "feedback_sent"] {
            #expect(count(#""event":"\#(name)""#) > 10, "\(name)")
        }
        for name in ["Avatar Changed", "firebase_custom", "2fa_enabled", "ga_session_marker",
                     "a_very_long_event_name_that_goes_well_beyond_forty_characters", "Ünïcödé Event", "screen_view"] {
            #expect(count(#""event":"\#(name)""#) > 0, "\(name)")
        }
        #expect(count("card 4111 1111 1111 1111 exp 12/29") > 0)
        #expect(count("contact me at ") > 0)
        #expect(count("call +1 415 555 ") > 0)
        #expect(count("my ip is 198.51.100.") > 0)
        #expect(count(#""user_email":null"#) > 0)
        #expect(count(#""user_email":""#) > 0)
        #expect(count(#""big_id":92233720368547"#) > 10)
        #expect(count(#""nested":{"a":[1,2.5,-0.0,1e21,null,true],"b":{"c":"é漢😀"}}"#) > 10)
        #expect(count(#""consent":{"analytics":false}"#) > 0)
        #expect(count(#""ip":"203.0."#) > 1000)
        #expect(count(#""ip":"2001:db8:"#) > 100)
        #expect(count(#""targets":[""#) > 10)
    }

    @Test func bigIdsAreTwoToThe63PlusAtMostAThousandWrittenAsIntegerDigits() {
        let stream = lines(generate(options(events: 30000, seed: 5))).map(text)
        var seen = 0
        for line in stream {
            guard let range = line.range(of: #""big_id":"#) else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            let value = UInt64(digits)
            #expect(value.map { $0 >= 1 << 63 && $0 <= (1 << 63) + 1000 } == true, "\(digits)")
            seen += 1
        }
        #expect(seen > 0)
    }

    @Test func pricesAreWrittenLikePythonFloatsWithAtMostTwoDecimals() {
        let stream = lines(generate(options(events: 30000, seed: 6))).map(text)
        for line in stream {
            guard let range = line.range(of: #""price":"#) else { continue }
            let price = line[range.upperBound...].prefix { $0 != "," }
            let parts = price.split(separator: ".")
            #expect(parts.count == 2 && (1...2).contains(parts[1].count), "\(price)")
            #expect(parts.count == 2 && (parts[1].count == 1 || parts[1].last != "0"), "\(price)")
            #expect(Double(price).map { $0 >= 0.99 && $0 <= 49.99 } == true, "\(price)")
        }
    }

    @Test func everyTimedStopWithATimerIdFollowsAStartWithThatId() {
        var started: Set<String> = []
        var stops = 0
        for line in lines(generate(options(events: 40000, seed: 8, duplicates: 0, late: 0))).map(text) {
            guard let range = line.range(of: #""timerId":""#) else { continue }
            let id = String(line[range.upperBound...].prefix { $0 != "\"" })
            #expect(id.hasPrefix("play-") && id.count == 11)
            #expect(line.contains(#""event":"video_playback""#))
            if line.contains(#""timed":"start""#) {
                started.insert(id)
            } else {
                #expect(started.contains(id), "stop of \(id) before its start")
                stops += 1
            }
        }
        #expect(stops > 0)
    }

    @Test func duplicatesAreTheSameLineTwiceInARow() throws {
        let stream = lines(generate(options(events: 20000, duplicates: 0.02, late: 0)))
        var repeats = 0
        for index in 1..<stream.count where stream[index] == stream[index - 1] {
            repeats += 1
        }
        #expect(repeats > 200 && repeats < 600)
        var ids: [String: Int] = [:]
        for line in stream {
            guard case let .success(event) = decode(line), let id = string(event, "messageId") else { continue }
            ids[id, default: 0] += 1
        }
        #expect(ids.values.filter { $0 == 2 }.count == repeats)
        #expect(ids.values.allSatisfy { $0 <= 2 })
        let none = lines(generate(options(events: 5000, duplicates: 0, late: 0)))
        #expect(Set(none).count == none.count)
    }

    /// Each device numbers its messages 1, 2, 3, ... in the order it makes them, so a
    /// late line shows up as a message number lower than one already seen for its device.
    private func outOfOrderMessages(_ stream: [ArraySlice<UInt8>]) -> (count: Int, maxLinesLate: Int) {
        var highest: [String: (message: Int, line: Int)] = [:]
        var count = 0
        var maxLinesLate = 0
        for (index, line) in stream.enumerated() {
            guard case let .success(event) = decode(line), let id = string(event, "messageId"),
                  let dash = id.lastIndex(of: "-"), let number = Int(id[id.index(after: dash)...])
            else { continue }
            let device = String(id[..<dash])
            if let seen = highest[device], number < seen.message {
                count += 1
                maxLinesLate = max(maxLinesLate, index - seen.line)
            } else {
                highest[device] = (number, index)
            }
        }
        return (count, maxLinesLate)
    }

    @Test func lateLinesArriveAfterLaterMessagesOfTheirDeviceByAtMostAbout2000Lines() {
        let onTime = outOfOrderMessages(lines(generate(options(events: 20000, devices: 50, late: 0))))
        #expect(onTime.count == 0)
        let late = outOfOrderMessages(lines(generate(options(events: 20000, devices: 50, late: 0.05))))
        #expect(late.count > 200)
        #expect(late.maxLinesLate <= 2100)
    }

    @Test func theDevicesOptionBoundsTheDistinctAnonymousIds() {
        func anonymousIds(_ options: GeneratorOptions) -> Set<String> {
            Set(lines(generate(options)).compactMap { line -> String? in
                guard case let .success(event) = decode(line) else { return nil }
                return string(event, "anonymousId")
            })
        }
        let few = anonymousIds(options(events: 5000, devices: 7))
        #expect(few.count == 7)
        #expect(few.allSatisfy { $0.hasPrefix("dev-00000") && $0.count == 19 })
        // The default: events / 50, at least 10.
        #expect(anonymousIds(options(events: 100)).count <= 10)
        let many = anonymousIds(options(events: 20000))
        #expect(many.count <= 400 && many.count > 300)
    }

    // MARK: - Broken lines

    @Test func aMalformedRateBreaksAboutThatShareOfLinesInEveryWay() {
        let stream = lines(generate(options(events: 12000, seed: 4, malformed: 0.05)))
        var reasons: [RejectReason: Int] = [:]
        for line in stream {
            if case let .failure(rejection) = decode(line) { reasons[rejection.reason, default: 0] += 1 }
        }
        let rejected = reasons.values.reduce(0, +)
        #expect(rejected > 400 && rejected < 800)
        #expect(reasons[.invalidJSON, default: 0] > 0)
        #expect(reasons[.notAnObject, default: 0] > 0)
        #expect(reasons[.invalidUTF8, default: 0] > 0)
        #expect(reasons[.invalidTimestamp, default: 0] > 0)
        #expect(reasons[.missingIdentity, default: 0] > 0)  // the 30-digit event and the 70 kB line
        let texts = stream.filter { $0.count < 1000 }.map(text)
        #expect(texts.contains(#"{"type":"track","event":999999999999999999999999999999}"#))
        #expect(texts.contains("[1,2,3]"))
        #expect(texts.contains { $0.contains(#""timestamp":"not-a-date 2026-11-"#) })
        #expect(stream.contains { $0.count == 70_027 && $0.starts(with: #"{"type":"track","event":"xxxx"#.utf8) })
        let garbage: [UInt8] = [0xFF, 0xFE] + Array(" garbage ".utf8) + [0x00] + Array(" line".utf8)
        #expect(stream.contains { Array($0) == garbage })
    }

    @Test func truncatedLinesStayValidUTF8() {
        let stream = lines(generate(options(events: 8000, seed: 10, malformed: 0.1)))
        let truncated = stream.filter { $0.first == UInt8(ascii: "{") && $0.last != UInt8(ascii: "}") }
        #expect(truncated.count > 60)
        for line in truncated {
            #expect(String(validating: line, as: UTF8.self) != nil)
        }
    }
}
