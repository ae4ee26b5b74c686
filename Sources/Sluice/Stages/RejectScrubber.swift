/// What a stage that finds personal data does to a rejected line before it is
/// written to the rejects output: the line went no further than where it was
/// rejected (often before the stage), so the stage never scrubbed it.
/// A class: the stage that made it (`PersonalDataStage.makeRejectScrubber()`) reads what
/// it counted, for the stats, while the reject writer uses it.
public protocol RejectScrubber: AnyObject {
    /// Scrubs a rejected line (any bytes: not JSON, not UTF-8, or only the
    /// start of a line too long when `truncated`) and the reject's detail, in
    /// place; whether either changed.
    func scrub(line: inout [UInt8], detail: inout String, truncated: Bool) -> Bool
}
