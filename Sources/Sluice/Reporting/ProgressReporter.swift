/// The progress line on stderr (`--progress`): events (non-blank lines) read,
/// events per second over the last interval, bytes read of the total when
/// every input is a regular file, and the time left at the average byte rate so far.
///
/// `sluice: 1200000 events, 291000 events/s, 528.1 of 880.0 MB (60%), ETA 0:01`
/// On a terminal the line is redrawn in place; otherwise one line per interval.
public final class ProgressReporter: RunReporter {
    public let interval: Duration
    private let console: StderrConsole
    private var previous: (lines: Int, seconds: Double) = (0, 0)

    public init(console: StderrConsole, interval: Duration? = nil) {
        self.console = console
        self.interval = interval ?? (console.isTerminal ? .milliseconds(500) : .seconds(1))
    }

    public func report(_ summary: RunSummary) throws {
        console.showStatus(Self.line(summary, since: previous))
        previous = (summary.linesIn, summary.elapsedSeconds)
    }

    /// Erases the line before the summary is printed.
    public func finish() {
        console.clearStatus()
    }

    static func line(_ summary: RunSummary, since previous: (lines: Int, seconds: Double)) -> String {
        let events = summary.linesIn
        let window = summary.elapsedSeconds - previous.seconds
        let rate = window > 0 ? Double(events - previous.lines) / window : 0
        var parts = ["sluice: \(events) events", "\(Int(rate.rounded())) events/s"]
        let read = summary.inputs.reduce(0) { $0 + $1.bytes }
        if let total = summary.inputBytesTotal, total > 0 {
            let percent = min(100, read * 100 / total)
            parts.append("\(megabytes(read)) of \(megabytes(total)) MB (\(percent)%)")
            if read > 0 && summary.elapsedSeconds > 0 {
                let bytesPerSecond = Double(read) / summary.elapsedSeconds
                parts.append("ETA " + clock(Double(max(total - read, 0)) / bytesPerSecond))
            }
        } else {
            parts.append("\(megabytes(read)) MB read")
        }
        return parts.joined(separator: ", ")
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `m:ss`, or `h:mm:ss` past an hour.
    private static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? "\(h):\(pad(m, 2)):\(pad(s, 2))" : "\(m):\(pad(s, 2))"
    }
}
