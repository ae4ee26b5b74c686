#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a `--state` file could not be used or kept.
///
/// A state file that exists but cannot be trusted is never silently replaced
/// by a fresh start: the lines it carries (open timers) and the sessions it
/// continues would be lost without a word. Only a *missing* file is a first run.
public enum StateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with the state file's magic bytes (exit 65).
    case notAStateFile(path: String)
    /// Written by a Sluice with another state format (exit 65).
    case incompatibleVersion(path: String, found: UInt32, supported: UInt32)
    /// The checksum does not match, or the content does not hold together (exit 65).
    case corrupt(path: String, detail: String)
    /// Written by a pipeline whose stages, or whose stage settings that give the
    /// state its meaning, differ from this one's (exit 65).
    case differentPipeline(path: String, detail: String)
    /// The file exists but cannot be read (exit 66).
    case cannotRead(path: String, errno: Int32)
    /// The state cannot be written (exit 73 before the run, 74 at its end).
    case cannotWrite(path: String, errno: Int32, atEnd: Bool)
    /// Another run holds the state file's lock (exit 75: try again later).
    case locked(path: String)

    public var description: String {
        switch self {
        case let .notAStateFile(path):
            return "--state \(path) is not a sluice state file; point --state at the file an earlier run wrote, or at a path that does not exist yet for a first run"
        case let .incompatibleVersion(path, found, supported):
            let readable = StateVersion.oldestReadable == supported ? "format \(supported)"
                : "formats \(StateVersion.oldestReadable) to \(supported)"
            return "--state \(path) has state format \(found); this sluice reads \(readable). Finish it with the sluice that wrote it (the open timers it holds are otherwise lost), then move it away"
        case let .corrupt(path, detail):
            return "--state \(path) is corrupt (\(detail)); nothing was read or written. Restore it from a backup, or move it away to start fresh (the open timers and sessions it held are then lost)"
        case let .differentPipeline(path, detail):
            return "--state \(path) was written by another pipeline: \(detail). Run it with the pipeline that wrote it, or use another --state file for this pipeline"
        case let .cannotRead(path, code):
            return "cannot read --state \(path): \(String(cString: strerror(code)))"
        case let .cannotWrite(path, code, atEnd):
            if atEnd {
                return "cannot save --state \(path): \(String(cString: strerror(code))). The outputs of this run are complete but the state was NOT saved: "
                    + "the previous state is unchanged, so rerunning this run's inputs with it writes their outputs again instead of losing the open timers"
            }
            return "cannot write --state \(path): \(String(cString: strerror(code))); check the directory exists and is writable"
        case let .locked(path):
            return "--state \(path) is in use by another sluice run (it holds \(path).lock, or the file itself under another name); this run did nothing, try again when that one has finished"
        }
    }
}
