/// Scrubs personal data out of text taken from events that is reported
/// outside the records: a stage whose settings find personal data (`privacy`)
/// offers one (`PersonalDataStage.reportedTextScrubber`), and a stage that reports such
/// text (`plan`: unplanned event names in the stats and metrics) is handed
/// every one the pipeline has (`ReportedTextStage.scrubReportedText(with:)`).
public protocol TextScrubber {
    /// Replaces what the detectors find in `text` by their tokens; whether it changed anything.
    mutating func scrub(_ text: inout [UInt8]) -> Bool
}

/// Text taken from events, made fit for the stats and the metrics (where it
/// becomes a label value): run through the pipeline's `TextScrubber`s, then
/// cut to `maxBytes` (at a character boundary, ending in `…`), so neither
/// personal data nor an unbounded label reaches a report.
public struct ReportedText {
    /// The longest text reported, in UTF-8 bytes.
    public static let maxBytes = 64
    private static let ellipsis = Array("…".utf8)
    private var scrubbers: [any TextScrubber]

    public init(scrubbers: [any TextScrubber] = []) {
        self.scrubbers = scrubbers
    }

    /// `text` as it may be reported.
    public mutating func fit(_ text: [UInt8]) -> [UInt8] {
        var result = text
        for index in scrubbers.indices { _ = scrubbers[index].scrub(&result) }
        guard result.count > Self.maxBytes else { return result }
        var end = Self.maxBytes - Self.ellipsis.count
        // Back to the start of the character the cut falls in (a continuation byte is 10xxxxxx).
        while end > 0 && result[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(result[..<end]) + Self.ellipsis
    }
}
