@testable import Sluice
import SluiceTestSupport
import Foundation
import Testing

/// The redaction walk's memory of clean scans (`CleanScanMemo`) changes no
/// result: a stage that has seen many events writes each new event exactly as
/// a fresh stage does. Random events reuse a small pool of strings, numbers,
/// field names, keys and countries, so that most scans are answered from the
/// memo, in every mode (values, keys, exempt fields, numbers) and with the
/// stage's configurations that change what is scanned (custom patterns,
/// exemptions, paths).
struct CleanScanMemoEquivalenceTests {
    private typealias P = PrivacyCase

    static let strings = [
        "601 461 055", "612345678", "06 12 34 56 78", "030 1234567", "030-1234567", "8222125341", "4155550123",
        "+1 415 555 0123", "(415) 555-0123", "4111 1111 1111 1111", "4111111111111111", "user@example.com",
        "user%40example.com", "10.1.2.3", "1.2.3.4", "v1.2.3.4", "DE89370400440532013000", "Pixel 8", "ORD-1234",
        "call 030 1234567", "2026-11-20", "12345678", "+82 2 212 5341", "491511234567", "13812345678", "9780306406157",
        "order 61234567", "fe80::1", "tel: 612 345 678",
    ]
    static let numbers = ["8222125341", "4111111111111111", "4155550100", "612345678", "1234567", "30010575493922",
                          "491511234567", "13812345678", "4.111111111111111e15", "6123456780"]
    static let fields = ["phone", "tel", "ref", "note", "model", "order_id", "n", "mobile", "card_id", "request_count",
                         "version", "ip", "address", #"ph\u006fne"#, "isbn", "count"]
    static let locales = ["en_US", "es_ES", "ko_KR", "de_DE", "fr_FR", "zh_CN", "en_GB", nil]

    static func event(_ random: inout TestRandom) -> String {
        func pick<T>(_ values: [T]) -> T { values[random.below(values.count)] }
        func value() -> String {
            switch random.below(6) {
            case 0, 1, 2: return "\"\(pick(strings))\""
            case 3: return pick(numbers)
            case 4: return "[\"\(pick(strings))\",\(pick(numbers))]"
            default: return "{\"\(pick(fields))\":\"\(pick(strings))\"}"
            }
        }
        var members: [String] = []
        var names: Set<String> = []
        for _ in 0..<(1 + random.below(5)) {
            // A value's text as a key now and then (keys are searched too).
            let key = random.below(6) == 0 ? pick(strings) : pick(fields)
            // Keys are unique once decoded (the parser refuses a line that repeats one).
            if names.insert(key.replacingOccurrences(of: #"\u006f"#, with: "o")).inserted { members.append("\"\(key)\":\(value())") }
        }
        var context: [String] = []
        if let locale = pick(locales) { context.append("\"locale\":\"\(locale)\"") }
        if random.below(3) == 0 { context.append("\"app\":{\"version\":\"\(pick(strings))\"}") }
        if random.below(4) == 0 { context.append("\"session\":{\"id\":\"\(pick(strings))\"}") }
        return P.track("\"context\":{\(context.joined(separator: ","))},\"properties\":{\(members.joined(separator: ","))}")
    }

    @Test(arguments: [
        "{}",
        #"{patterns: {order: "ORD-[0-9]{4}"}}"#,
        #"{redact: {exempt: ["properties.ref", "properties.*.tel", "context.app"], paths: ["properties", "context.app"]}}"#,
        "{redact: {keys: false, detectors: [phone, card]}}",
    ])
    func aStageWithItsMemoWritesWhatAFreshStageWrites(configuration: String) throws {
        var random = TestRandom(state: 0xC1EA_0000 &+ UInt64(configuration.utf8.count))
        var warm = try P.stage(configuration)
        var differences = 0
        for round in 0..<1500 {
            let line = Self.event(&random)
            let written = P.apply(line, &warm)
            var fresh = try P.stage(configuration)
            let expected = P.apply(line, &fresh)
            if written != expected {
                differences += 1
                if differences <= 5 { Issue.record("round \(round): \(line)\n warm:  \(written ?? "nil")\n fresh: \(expected ?? "nil")") }
            }
        }
        #expect(differences == 0)
    }
}
