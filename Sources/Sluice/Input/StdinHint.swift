#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sluice run` typed at a prompt with no input waits for the terminal; a
/// line on stderr says so, and how to end it.
enum StdinHint {
    /// Whether the run reads stdin (no input, or `-`) and stdin is a terminal.
    static func applies(to inputs: [String]) -> Bool {
        (inputs.isEmpty || inputs.contains("-")) && isatty(STDIN_FILENO) == 1
    }

    static let text = "reading events from the terminal (stdin): paste NDJSON lines, then press Ctrl-D to end; "
        + "or name the files to read: sluice run FILE..."
}
