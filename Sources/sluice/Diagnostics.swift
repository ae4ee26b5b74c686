#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes (sysexits), as docs/operations.md lists them.
enum ExitStatus {
    static let ok: Int32 = 0
    /// `sluice test`: a case failed (the test runners' convention, not a sysexit).
    static let testFailure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let config: Int32 = 78
}

/// Messages for people go to stderr; stdout carries only records.
enum Diagnostics {
    static func error(_ message: String) {
        let line = message.hasSuffix("\n") ? message : message + "\n"
        _ = line.withCString { fputs($0, stderr) }
    }
}
