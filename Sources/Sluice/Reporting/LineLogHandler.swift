import Logging

/// A swift-log handler that writes one line per message to a `StderrConsole`:
/// `sluice: message key=value ...`, with `warning: ` or `error: ` before the
/// message at those levels. A newline inside a message is escaped, so one
/// message is always one line.
///
/// Handed to the code that logs as a `Logger` value (never a global), as
/// swift-log's "accepting loggers" practice asks.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let console: StderrConsole
    private let prefix: String

    public init(console: StderrConsole, prefix: String = "sluice", level: Logger.Level = .info) {
        self.console = console
        self.prefix = prefix
        self.logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        console.writeLine(Self.format(prefix: prefix, level: event.level, message: event.message.description,
                                      metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// The line for a message (without its newline).
    static func format(prefix: String, level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = prefix + ": "
        switch level {
        case .warning: line += "warning: "
        case .error, .critical: line += "error: "
        default: break
        }
        line += escaped(message)
        for key in metadata.keys.sorted() {
            line += " \(key)=" + escaped(metadata[key]!.description)
        }
        return line
    }

    private static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingAll("\r", with: "\\r").replacingAll("\n", with: "\\n")
    }
}

extension Logger {
    /// The command-line logger: lines on stderr through `console`; `quiet` keeps only errors.
    public static func sluiceStderr(console: StderrConsole, quiet: Bool, label: String = "sluice") -> Logger {
        Logger(label: label) { _ in LineLogHandler(console: console, level: quiet ? .error : .info) }
    }
}
