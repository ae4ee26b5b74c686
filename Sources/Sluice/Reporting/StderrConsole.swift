// Unsafe code: one `withUnsafeBytes`, to write a whole line to stderr with one
// write(2) (`FileSystem.writeAll`); the array outlives the call.

import Foundation

/// The one writer of stderr: whole lines, one write(2) each, under a lock, so
/// log lines from different threads never interleave, and a progress line
/// (redrawn in place on a terminal) is cleared before a log line is printed.
///
/// stdout is never touched here: it carries only records.
///
/// Sendable: `statusShown`, its one mutable field, is read and written only
/// under `lock`, which every write to `fd` holds; `fd` and `isTerminal` are `let`s.
public final class StderrConsole: @unchecked Sendable {
    private let lock = NSLock()
    private let fd: Int32
    /// Whether the descriptor is a terminal (a status line can be redrawn in place).
    public let isTerminal: Bool
    /// A status line is on screen and must be erased before the next line.
    private var statusShown = false

    public init(fd: Int32 = 2) {
        self.fd = fd
        isTerminal = isatty(fd) == 1
    }

    /// Writes one line (a newline is added).
    public func writeLine(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        var bytes: [UInt8] = []
        if statusShown {
            bytes.append(contentsOf: "\r\u{1B}[K".utf8)
            statusShown = false
        }
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        writeAll(bytes)
    }

    /// Shows a status line: redrawn in place on a terminal, a plain line otherwise.
    public func showStatus(_ text: String) {
        guard isTerminal else { return writeLine(text) }
        lock.lock()
        defer { lock.unlock() }
        writeAll(Array(("\r" + text + "\u{1B}[K").utf8))
        statusShown = true
    }

    /// Erases the status line, if one is shown.
    public func clearStatus() {
        lock.lock()
        defer { lock.unlock() }
        guard statusShown else { return }
        writeAll(Array("\r\u{1B}[K".utf8))
        statusShown = false
    }

    private func writeAll(_ bytes: [UInt8]) {
        // A failure means stderr is gone: nothing better to do with a message.
        _ = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
    }
}
