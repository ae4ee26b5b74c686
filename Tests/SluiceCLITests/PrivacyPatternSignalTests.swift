import Foundation
import SluiceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End to end: strings with a match at every other byte are redacted in time
/// linear in their matches, so SIGTERM, served between lines, stops the run
/// promptly, with every line read accounted for.
@Suite struct PrivacyPatternSignalTests {
    @Test func sigtermDuringStringsWithAMatchAtEveryOtherByteExits143WithEveryLineAccountedFor() throws {
        let directory = TemporaryDirectory()
        directory.write("p.yaml", """
            version: 1
            stages:
              - privacy: {redact: {detectors: []}, patterns: {any: "x"}}
            destinations: {archive: {type: ndjson}}
            """)
        // 256 KiB of `xa` per line: 131,072 matches each (rescanning earlier matches for each new one: 10^10 steps a line).
        let note = String(repeating: "xa", count: 1 << 17)
        let lines = (0..<4).map { index in
            Array(#"{"type":"track","event":"e","anonymousId":"a\#(index)","timestamp":"2026-11-20T08:00:00Z","properties":{"note":"\#(note)"}}"#.utf8)
        }
        let sluice = try SluiceProcess(["run", "--pipeline", "p.yaml", "--flush-interval", "100ms", "--metrics", "m.prom", "--stats", "s.json"],
                                       in: directory.path)
        #expect(sluice.send(lines: lines))
        // The input stays open: the signal, not its end, stops the run.
        #expect(waitUntil(timeout: 60) { linesIn(metrics: directory.file("m.prom")) == lines.count })
        sluice.signal(SIGTERM)
        let status = sluice.waitForExit(timeout: 60)
        sluice.closeInput()
        #expect(status == 143, "\(sluice.stderr)")
        let stats = (try? JSONSerialization.jsonObject(with: FileManager.default.contents(atPath: directory.file("s.json")) ?? Data())) as? [String: Any] ?? [:]
        #expect(stats["lines_in"] as? Int == lines.count)
        #expect(stats["emitted"] as? Int == lines.count)
        #expect(stats["balanced"] as? Bool == true)
        let delivered = gunzipFiles(directory, under: "out/archive/").flatMap(\.lines)
        #expect(delivered.count == lines.count)
        let redacted = String(repeating: "[any]a", count: 1 << 17)
        #expect(delivered.allSatisfy { String(decoding: $0, as: UTF8.self).contains(#""note":"\#(redacted)""#) })
    }
}
