import Foundation
import SluiceTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built binary running in the background, fed through a pipe, sent real
/// signals: what a sidecar's supervisor or a shell does to it.
///
/// Sendable: a test feeds it from a writer thread while the test's own thread
/// signals and closes it. Its one mutable value, the pipe's write end, is read
/// and changed only under `inputLock`, which a write holds for its whole call,
/// so the descriptor is never closed (and its number reused) under a write; the
/// rest is set in `init` and only read after (`Process` is thread-safe).
final class SluiceProcess: @unchecked Sendable {
    let process = Process()
    private let inputLock = NSLock()
    private var inputWrite: Int32 = -1
    private let stdoutPath: String
    private let stderrPath: String
    let directory: String

    /// Starts `executable ARGS` in `directory` with stdin from a pipe; stdout
    /// goes to a file, or to `stdout` when given (a pipe the test may never read).
    init(_ arguments: [String], in directory: String, executable: String = SluiceBinary.path,
         environment: [String: String] = [:], stdout: FileHandle? = nil) throws {
        // A test writing into a pipe whose reader exited must get EPIPE, not die.
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        self.directory = directory
        stdoutPath = directory + "/.stdout-\(UUID().uuidString)"
        stderrPath = directory + "/.stderr-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        // Close-on-exec, so no other child started by a parallel test inherits
        // the write end and keeps our child's stdin from ever ending.
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        inputWrite = fds[1]
        let readEnd = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        env["SLUICE"] = SluiceBinary.path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = readEnd
        process.standardOutput = stdout ?? FileHandle(forWritingAtPath: stdoutPath)!
        process.standardError = FileHandle(forWritingAtPath: stderrPath)!
        try process.run()
        try? readEnd.close()
    }

    deinit {
        closeInput()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
    }

    var pid: Int32 { process.processIdentifier }

    /// Writes bytes to the child's stdin; false once the child stopped reading.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        inputLock.lock()
        defer { inputLock.unlock() }
        guard inputWrite >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(inputWrite, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += n
        }
        return true
    }

    /// Writes lines (each followed by a newline).
    @discardableResult
    func send(lines: some Sequence<[UInt8]>) -> Bool {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line
            bytes.append(0x0A)
        }
        return send(bytes)
    }

    /// Closes stdin: end of input.
    func closeInput() {
        inputLock.lock()
        defer { inputLock.unlock() }
        if inputWrite >= 0 {
            close(inputWrite)
            inputWrite = -1
        }
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// The exit status, or nil if the process is still running after `timeout` seconds.
    func waitForExit(timeout: Double) -> Int32? {
        guard waitUntil(timeout: timeout, { !self.process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var stderr: String {
        String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self)
    }

    var stdout: [UInt8] {
        Array(FileManager.default.contents(atPath: stdoutPath) ?? Data())
    }
}

/// Polls `condition` until it holds or `timeout` seconds pass; true if it held.
/// The wait between polls only sets how soon we notice, never what we check.
func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The samples of a Prometheus textfile, by name with labels (`name{a="b"}`).
func prometheusSamples(_ path: String) -> [String: Double] {
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    return prometheusSamples(text: String(decoding: data, as: UTF8.self))
}

/// The samples of a Prometheus text exposition, by name with labels (`name{a="b"}`).
func prometheusSamples(text: String) -> [String: Double] {
    var result: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
        result[String(line[..<space])] = value
    }
    return result
}

/// Lines read so far, from a running sluice's `--metrics` file (0 before the first write).
func linesIn(metrics path: String) -> Int {
    Int(prometheusSamples(path)["sluice_lines_in_total"] ?? 0)
}

/// Every line of every complete gzip file under `directory/prefix` with the given suffix, file by file in name order.
func gunzipFiles(_ directory: TemporaryDirectory, under prefix: String, suffix: String = ".ndjson.gz") -> [(file: String, lines: [[UInt8]])] {
    directory.files().filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted().map { file in
        (file, TestGzip.decompressFile(directory.file(file)).map(ndjsonLines) ?? [[0xFF, 0xFF]])
    }
}
