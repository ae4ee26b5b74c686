import Foundation
@testable import Sluice
@testable import SluiceJSON
import Testing

/// The detector corpus (`Corpus/*.txt`): positive and negative cases per
/// detector, run through the scanner with every detector on. Prints precision
/// and recall per detector; recall on the marked positives must be 100%, and
/// no negative line may be changed.
@Suite struct PrivacyCorpusTests {
    struct Case {
        var file: String
        var line: Int
        var text: [UInt8]
        /// The marked spans: byte range in `text` and the detector's name.
        var spans: [(start: Int, end: Int, detector: String)]
        var positive: Bool
        /// The event's `context.locale` (an `@ xx-YY` line sets it for the lines after it in its file; `@ none` clears it).
        var locale: String?
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus").path

    /// Reads every corpus file: `+`/`-` lines, `{{detector:text}}` marks.
    static func cases() throws -> [Case] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".txt") }.sorted()
        var cases: [Case] = []
        for file in files {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            var locale: String?
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("@ ") {
                    let name = String(line.dropFirst(2))
                    locale = name == "none" ? nil : name
                    continue
                }
                guard let sign = line.first, sign == "+" || sign == "-" else { continue }
                var raw = Array(line.dropFirst(2).utf8)
                var spans: [(Int, Int, String)] = []
                while let open = raw.firstRange(of: Array("{{".utf8)) {
                    let close = try #require(raw[open.upperBound...].firstRange(of: Array("}}".utf8)), "\(file):\(number + 1)")
                    let inner = Array(raw[open.upperBound..<close.lowerBound])
                    let colon = try #require(inner.firstIndex(of: UInt8(ascii: ":")))
                    let name = String(decoding: inner[..<colon], as: UTF8.self)
                    let value = Array(inner[(colon + 1)...])
                    raw.replaceSubrange(open.lowerBound..<close.upperBound, with: value)
                    spans.append((open.lowerBound, open.lowerBound + value.count, name))
                }
                #expect((sign == "+") == !spans.isEmpty, "\(file):\(number + 1): a + line needs marks, a - line none")
                cases.append(Case(file: file, line: number + 1, text: raw, spans: spans, positive: sign == "+", locale: locale))
            }
        }
        return cases
    }

    static func scan(_ text: [UInt8], locale: String? = nil) -> [PIIMatch] {
        var scanner = PIIScanner(enabled: Set(PIIDetector.allCases), patterns: [])
        if let locale {
            let region = Array(locale.utf8).withUnsafeBufferPointer { PhoneRegion.named(byLocale: $0.span) }
            scanner.setPhoneRegionsForTesting(region ?? -1)
        }
        var matches: [PIIMatch] = []
        scanner.scan(text.span, into: &matches)
        return matches
    }

    @Test func everyMarkedCaseIsFoundAndNoNegativeIsTouched() throws {
        let cases = try Self.cases()
        #expect(cases.count > 150)
        var truePositives: [String: Int] = [:]
        var falsePositives: [String: Int] = [:]
        var falseNegatives: [String: Int] = [:]
        var failures: [String] = []
        for item in cases {
            let found = Self.scan(item.text, locale: item.locale).map { (start: $0.start, end: $0.end, detector: PIIDetector(rawValue: $0.detector)!.name) }
            let where_ = "\(item.file):\(item.line): \(String(decoding: item.text, as: UTF8.self))"
            for span in item.spans {
                if found.contains(where: { $0 == span }) {
                    truePositives[span.detector, default: 0] += 1
                } else {
                    falseNegatives[span.detector, default: 0] += 1
                    failures.append("missed \(span.detector) '\(String(decoding: item.text[span.start..<span.end], as: UTF8.self))' in \(where_)")
                }
            }
            for match in found where !item.spans.contains(where: { $0 == match }) {
                falsePositives[match.detector, default: 0] += 1
                failures.append("false \(match.detector) '\(String(decoding: item.text[match.start..<match.end], as: UTF8.self))' in \(where_)")
            }
        }
        print("detector    positives  precision  recall")
        for detector in PIIDetector.allCases.map(\.name) {
            let tp = truePositives[detector, default: 0], fp = falsePositives[detector, default: 0]
            let fn = falseNegatives[detector, default: 0]
            let precision = tp + fp == 0 ? 1 : Double(tp) / Double(tp + fp)
            let recall = tp + fn == 0 ? 1 : Double(tp) / Double(tp + fn)
            print("\(detector.padding(toLength: 11, withPad: " ", startingAt: 0)) \(String(tp + fn).padding(toLength: 10, withPad: " ", startingAt: 0)) "
                + "\(String(format: "%6.1f%%", precision * 100))   \(String(format: "%6.1f%%", recall * 100))")
            #expect(tp + fn > 0, "no positive case for \(detector)")
            #expect(fn == 0, "recall of \(detector) below 100%")
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func negativesComeOutOfTheDefaultStageUnchanged() throws {
        for item in try Self.cases() where !item.positive {
            var value: [UInt8] = []
            JSONString.appendQuoted(item.text, to: &value)
            let context = item.locale.map { #""context":{"locale":"\#($0)"},"# } ?? ""
            let line = #"{"type":"track","event":"e","anonymousId":"a","timestamp":"2026-11-20T08:00:00Z","#
                + context + #""properties":{"v":"# + String(decoding: value, as: UTF8.self) + "}}"
            var stage = PrivacyProtection()
            let outcome = StageCase.run([line], through: &stage)
            #expect(outcome.lines == [line], "\(item.file):\(item.line)")
        }
    }
}
