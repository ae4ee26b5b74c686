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

extension InputList {
    /// Every line of the inputs `given` names (resolved as above), input by input, through
    /// `body` with its input's index. An input that cannot be opened or read, or whose gzip is corrupt (its lines up
    /// to the damage are read), goes to `failed`, and the next input is read; an input that
    /// does not exist ends it before anything is read. What `body` throws ends it and is rethrown.
    /// For the commands that read lines without a pipeline (`shard-of`, `plan infer`).
    static func forEachLine(of given: [String], maxLineBytes: Int, failed: (InputError) -> Void,
                            _ body: (_ input: Int, _ line: InputLine) throws -> Void) throws {
        let inputs: [String]
        do {
            inputs = try resolve(given)
        } catch {
            return failed(error)
        }
        for (index, path) in inputs.enumerated() {
            do {
                let reader = try LineReader.open(path, maxLineBytes: maxLineBytes)
                while let line = try reader.next() { try body(index, line) }
            } catch let error as InputError {
                failed(error)
            }
        }
    }
}
