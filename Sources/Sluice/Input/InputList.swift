// Unsafe code: `withUnsafeBytes(of:)` reads a `dirent`'s `d_name`, a C
// character array readdir(3) fills, up to its NUL. It is copied before the
// next readdir and read no further than the array's size.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inputs a run reads, from what the command line names: `-` is stdin
/// (so is no input at all), a file is itself, and a directory is its regular
/// files in the byte order of their names (as `LC_ALL=C ls` lists them), not
/// descending into subdirectories and skipping hidden files (names starting
/// with `.`). Every input is checked before anything is read, so a missing
/// or unreadable one fails the run (exit 66) with nothing written.
enum InputList {
    static func resolve(_ arguments: [String]) throws(InputError) -> [String] {
        if arguments.isEmpty { return ["-"] }
        var paths: [String] = []
        for argument in arguments {
            if argument == "-" {
                paths.append(argument)
                continue
            }
            var info = stat()
            guard stat(argument, &info) == 0 else { throw .cannotOpen(path: argument, errno: errno) }
            if info.st_mode & S_IFMT == S_IFDIR {
                paths += try files(in: argument)
            } else {
                guard access(argument, R_OK) == 0 else { throw .cannotOpen(path: argument, errno: errno) }
                paths.append(argument)
            }
        }
        return paths
    }

    /// A directory's regular files (symbolic links followed), sorted by name as bytes, each checked readable.
    private static func files(in directory: String) throws(InputError) -> [String] {
        guard let stream = opendir(directory) else { throw .cannotOpen(path: directory, errno: errno) }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name.first == UInt8(ascii: ".") { continue }
            names.append(name)
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        var paths: [String] = []
        for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let path = prefix + String(decoding: name, as: UTF8.self)
            var info = stat()
            guard stat(path, &info) == 0 else { throw .cannotOpen(path: path, errno: errno) }
            guard info.st_mode & S_IFMT == S_IFREG else { continue }
            guard access(path, R_OK) == 0 else { throw .cannotOpen(path: path, errno: errno) }
            paths.append(path)
        }
        return paths
    }
}
