import Foundation
import SluiceTestSupport
import Testing

/// End-to-end: lines built to hurt a parser, through the real binary. Each
/// ends as a delivered event or a rejection with its reason; the run survives
/// and the accounting balances. (Memory on 100 MB lines and a million devices
/// is measured, not tested: see docs/performance.md.)
@Suite struct HostileInputTests {
    private func json(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    private func records(_ directory: TemporaryDirectory, _ prefix: String) -> [[UInt8]] {
        directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gz") }.flatMap { file -> [[UInt8]] in
            guard let bytes = TestGzip.decompressFile(directory.file(file)) else {
                Issue.record("\(file) is not complete, valid gzip")
                return []
            }
            return ndjsonLines(bytes)
        }
    }

    private static let head = #"{"type":"track","anonymousId":"d1","timestamp":"2026-11-20T08:00:00Z","event":"#

    @Test func deepNestingHugeNumbersBadUTF8NULsAndLongLinesEachEndAsTheyShould() throws {
        let directory = TemporaryDirectory()
        let deep = Array((Self.head + #""deep","properties":"# + String(repeating: "[", count: 100_000)).utf8)
        let number = Array((Self.head + #""num","properties":{"n":123456789012345678901234567890,"m":-1e400}}"#).utf8)
        let badUTF8 = Array((Self.head + #""bad","properties":{"s":""#).utf8) + [0xC3, 0x28, 0xFF] + Array(#""}}"#.utf8)
        let rawNUL = Array((Self.head + #""nul","properties":{"s":"a"#).utf8) + [0x00] + Array(#"b"}}"#.utf8)
        let escapedNUL = Array((Self.head + #""esc","properties":{"s":"a\u0000b"}}"#).utf8)
        let onlyNULs = [UInt8](repeating: 0, count: 5000)
        let long = Array((Self.head + #""long","properties":{"s":""# + String(repeating: "x", count: 5_000_000) + #""}}"#).utf8)
        let after = Array((Self.head + #""after"}"#).utf8)
        let lines = [deep, number, badUTF8, rawNUL, escapedNUL, onlyNULs, long, after]
        directory.write("hostile.ndjson", lines.map { $0 + [0x0A] }.joined().map { $0 })

        let result = try SluiceBinary.run(["run", "--stats", "stats.json", "hostile.ndjson"], in: directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let stats = json(Array(FileManager.default.contents(atPath: directory.file("stats.json"))!))
        #expect(stats["lines_in"] as? Int == 8)
        #expect(stats["balanced"] as? Bool == true)
        #expect(stats["rejected_by_reason"] as? [String: Int] == ["nesting_too_deep": 1, "invalid_utf8": 1, "invalid_json": 2, "line_too_long": 1])

        let archive = records(directory, "out/archive/").map { String(decoding: $0, as: UTF8.self) }
        #expect(archive.count == 3)
        #expect(archive.contains { $0.contains(#""n":123456789012345678901234567890,"m":-1e400"#) }, "numbers pass as their text")
        #expect(archive.contains { $0.contains(#""s":"a\u0000b""#) }, "an escaped NUL passes as it came")
        #expect(archive.contains { $0.contains(#""event":"after""#) }, "the line after a 5 MB line is intact")

        var rejects: [Int: [String: Any]] = [:]
        for line in records(directory, "out/rejects/") {
            let record = json(line)
            rejects[record["line_number"] as! Int] = record
        }
        #expect(rejects[1]?["reason"] as? String == "nesting_too_deep")
        #expect(rejects[3]?["reason"] as? String == "invalid_utf8")
        #expect((rejects[3]?["line_base64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) == badUTF8)
        #expect(rejects[4]?["reason"] as? String == "invalid_json", "a raw NUL in a string is a control character")
        #expect(rejects[6]?["reason"] as? String == "invalid_json")
        #expect(rejects[7]?["reason"] as? String == "line_too_long")
        #expect(rejects[7]?["truncated"] as? Bool == true)
        #expect(rejects[7]?["line_bytes"] as? Int == long.count)
        #expect((rejects[7]?["line"] as? String)?.utf8.count == 1024)
    }
}
