import ArgumentParser
import Sluice
#if canImport(Glibc)
// `@preconcurrency`: Swift 6 sees Glibc's `stdout` and `stderr` as mutable
// globals; the C runtime sets them before `main`, they are only read after,
// and the `FILE` functions lock each stream themselves.
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum Diagnostics {
    /// `sluice: error: ` and the message, each of its lines so prefixed when it
    /// has several (a pipeline file's problems, one per line); the lines after a
    /// usage error's first are its usage, written as they are.
    static func error(_ message: String, continuation: Bool = false) {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var text = ""
        for (index, line) in lines.enumerated() where !(line.isEmpty && index == lines.count - 1) {
            text += (index == 0 || !continuation ? "sluice: error: " : "") + line + "\n"
        }
        write(text)
    }

    /// A located finding as it is (`file:line:column: warning: ...`).
    static func finding(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n")
    }

    private static func write(_ text: String) {
        _ = text.withCString { fputs($0, stderr) }
    }
}

/// The standard output of the commands that print reports (`test`, `recover`,
/// `generate`): a write that fails (a full disk, `> /dev/full`) is an I/O
/// error, exit 74, never a silent success. A reader that went away (`| head`)
/// has what it wanted: no error.
enum StandardOutput {
    struct WriteFailed: Error { var errno: Int32 }

    /// Flushes what `print` buffered; exit 74 with a message when it could not be written.
    static func finish() throws {
        if fflush(stdout) != 0 || ferror(stdout) != 0 {
            let code = errno
            if code == EPIPE { return }
            fail(code)
        }
    }

    /// Reports a failed write to stdout and exits 74.
    static func fail(_ code: Int32) -> Never {
        Diagnostics.error("cannot write to the standard output: \(String(cString: strerror(code)))")
        exit(ExitStatus.ioError)
    }
}

/// A count on the command line: a whole number from `minimum` on. A negative
/// or malformed one is refused as "must be positive" (taken as the option's
/// value, not as another option, with `parsing: .unconditional`).
enum CountArgument {
    static func parse(_ text: String, minimum: Int = 1) throws -> Int {
        guard let value = Int(text), value >= minimum else {
            throw ValidationError(minimum == 0 ? "must be positive (or 0): a whole number such as 100000"
                                  : "must be positive: a whole number such as 16")
        }
        return value
    }
}

/// A share from 0 to 1 on the command line (`--malformed 0.01`).
enum ShareArgument {
    static func parse(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, (0...1).contains(value) else {
            throw ValidationError(text.hasPrefix("-") ? "must be positive: a share from 0 to 1, such as 0.01"
                                  : "must be a share from 0 to 1, such as 0.01")
        }
        return value
    }
}
