#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many bytes a run's inputs hold in all, known before reading only when
/// every input is a regular file: the progress line's "how far".
enum InputSize {
    /// The sum of the inputs' sizes when all are regular files (`-` counts
    /// when stdin is redirected from a file), else nil: a pipe's length is
    /// known only at its end.
    static func total(of inputs: [String]) -> Int? {
        var total = 0
        for path in inputs {
            var info = stat()
            let result = path == "-" ? fstat(0, &info) : stat(path, &info)
            guard result == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            total += Int(info.st_size)
        }
        return total
    }
}
