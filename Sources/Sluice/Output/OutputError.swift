#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an output could not be written.
public enum OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file or directory could not be created (exit 73).
    case cannotCreate(path: String, errno: Int32)
    /// A write, fsync or rename failed while running (exit 74).
    case writeFailed(path: String, errno: Int32)
    /// zlib refused (exit 74).
    case compressionFailed(path: String, status: Int32)
    /// The `.part` was deleted while being written, its directory with it as
    /// a rule (exit 74): its records can never be finished.
    case removed(path: String)

    /// The system's error number (`EIO` for zlib's).
    package var errno: Int32 {
        switch self {
        case let .cannotCreate(_, code), let .writeFailed(_, code): return code
        case .compressionFailed: return EIO
        case .removed: return ENOENT
        }
    }

    public var description: String {
        switch self {
        case let .cannotCreate(path, code):
            return "cannot create \(path): \(String(cString: strerror(code))); check that --out is writable"
        case let .writeFailed(path, code) where path == "<stdout>":
            return "write failed on stdout: \(String(cString: strerror(code)))"
        case let .writeFailed(path, code):
            return "write failed on \(path): \(String(cString: strerror(code))); the file was left as .part (completed files are intact): free space, then run `sluice recover` on the output directory"
        case let .compressionFailed(path, status):
            return "zlib failed with status \(status) while writing \(path)"
        case let .removed(path):
            return "\(path) was deleted while the run was writing it (was the output directory removed?): "
                + "the records written to it are lost and counted in records_not_delivered; run the same input again into a fresh --out"
        }
    }
}

extension OutputError {
    /// The message for a report that could not be written (`--stats`, `--metrics`,
    /// `stats merge --out`): written whole or not at all, so no `.part` to recover.
    public func report(_ flag: String, _ path: String) -> String {
        "cannot write \(flag) \(path): \(String(cString: strerror(self.errno)))"
    }
}
