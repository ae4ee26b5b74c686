#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a run's events reach the stages (`--order`).
public enum InputOrder: String, Sendable, CaseIterable {
    /// Every event in `EventOrder`, whatever the disorder of the inputs
    /// (`ExactOrderFeed`): the default when every input is a file or a
    /// directory, so the same events give the same records however the logs
    /// were split into files.
    case exact
    /// As read: one input as its lines come, several merged in event time
    /// through a reorder window (`EventTimeMerge`): the default for stdin and
    /// FIFOs, which have no end to wait for.
    case window

    /// The order a run uses: the one given, else exact when every input is a
    /// regular file (a directory's files included) or bytes in memory, else window.
    static func resolve(_ given: InputOrder?, paths: [String], inMemory: Bool) -> InputOrder {
        if let given { return given }
        if inMemory { return .exact }
        return paths.allSatisfy(isRegularFile) ? .exact : .window
    }

    /// Whether `path` names a regular file (not stdin, a FIFO or a device), which can be read twice.
    static func isRegularFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
