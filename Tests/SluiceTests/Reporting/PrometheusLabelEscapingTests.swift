@testable import Sluice
import Testing

/// Every label value is escaped as the exposition format requires, whatever it holds.
@Suite struct PrometheusLabelEscapingTests {
    /// Quotes, backslashes and line breaks, alone and glued to combining marks (one `Character` with them).
    static let hostile = "a\"b\\c\nd\"\u{301}e\\\u{301}f\r\ng\"}\u{20DD} 1\n"

    /// The label values of one sample line, unescaped; nil when the line is not well formed.
    static func labelValues(_ line: Substring) -> [String]? {
        let scalars = Array(line.unicodeScalars)
        guard let open = scalars.firstIndex(of: "{") else { return [] }
        var values: [String] = []
        var index = open + 1
        while index < scalars.count {
            while index < scalars.count && scalars[index] != "=" { index += 1 }
            guard index + 1 < scalars.count, scalars[index + 1] == "\"" else { return nil }
            index += 2
            var value = String.UnicodeScalarView()
            while true {
                guard index < scalars.count else { return nil }
                let scalar = scalars[index]
                if scalar == "\"" { break }
                if scalar == "\n" { return nil }
                if scalar == "\\" {
                    guard index + 1 < scalars.count else { return nil }
                    switch scalars[index + 1] {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: return nil
                    }
                    index += 2
                    continue
                }
                value.append(scalar)
                index += 1
            }
            values.append(String(value))
            index += 1
            guard index < scalars.count else { return nil }
            if scalars[index] == "}" {
                guard String(String.UnicodeScalarView(scalars[(index + 1)...])).hasPrefix(" ") else { return nil }
                return values
            }
            guard scalars[index] == "," else { return nil }
            index += 1
        }
        return nil
    }

    @Test func aHostileValueInEveryLabelIsEscapedAndReadsBackWhole() {
        let hostile = Self.hostile
        var summary = RunSummary()
        summary.rejected = [RejectReason(hostile): 1]
        var destination = RunSummary.DestinationCounts(name: hostile, type: hostile)
        destination.refused = [hostile: 1]
        destination.notTaken = [hostile: 1]
        destination.changes = [(hostile, 1)]
        summary.destinations = [destination]
        summary.stages = [(hostile, [(hostile, 1)])]
        summary.stageGroups = [[CounterGroup(name: hostile, counters: [(hostile, 2)], groups: [CounterGroup(name: hostile, counters: [(hostile, 3)])])]]
        summary.inputs = [RunSummary.InputCounts(path: hostile, lines: 1, bytes: 1)]
        let text = PrometheusTextfile.render(summary)
        var labelled = 0
        // (sluice_build_info's one label is this build's version.)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false)
        where !line.hasPrefix("#") && !line.isEmpty && !line.hasPrefix("sluice_build_info{") {
            #expect(line.hasPrefix("sluice_"), "a line that is not a sample: \(line.debugDescription)")
            let values = Self.labelValues(line)
            #expect(values != nil, "malformed: \(line.debugDescription)")
            for value in values ?? [] {
                labelled += 1
                #expect(value == hostile || value == hostile + "/" + hostile, "\(value.debugDescription)")
            }
        }
        #expect(labelled >= 15)
    }
}
