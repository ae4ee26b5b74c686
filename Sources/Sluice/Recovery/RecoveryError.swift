#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why `recover` could not handle a file (exit 74) or a directory (exit 66).
public enum RecoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpenDirectory(path: String, errno: Int32)
    case readFailed(errno: Int32)
    case failed(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case let .cannotOpenDirectory(path, code) where code == ENOTDIR:
            return "\(path) is a file, not a directory: recover scans the directory a run wrote into (its --out) for .part files; "
                + "give that directory (here \(FileSystem.directory(of: path)))"
        case let .cannotOpenDirectory(path, code):
            return "cannot open directory \(path): \(String(cString: strerror(code)))"
        case let .readFailed(code):
            return "read failed: \(String(cString: strerror(code)))"
        case let .failed(operation, path, code):
            return "\(operation) \(path) failed: \(String(cString: strerror(code)))"
        }
    }
}
