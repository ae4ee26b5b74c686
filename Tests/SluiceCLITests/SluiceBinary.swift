import Foundation

/// Runs the built `sluice` executable, as a user would.
enum SluiceBinary {
    /// `sluice` sits beside the test bundle in the build directory.
    static let path: String = {
        if let override = ProcessInfo.processInfo.environment["SLUICE_BIN"] { return override }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // On Linux the bundle is a directory-less executable (.xctest); elsewhere it is a bundle.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("sluice").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return ".build/debug/sluice"
    }()

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `sluice ARGS` in `directory`, with `stdin` from a file (or /dev/null) and `environment` added.
    static func run(_ arguments: [String], in directory: String, stdin: String? = nil,
                    environment: [String: String] = [:]) throws -> Result {
        try runProcess(path, arguments, in: directory, stdin: stdin, environment: environment)
    }

    /// Runs a shell pipeline (bash -c, or another shell) with `$SLUICE` set to the binary.
    static func shell(_ script: String, in directory: String, shell: String = "/bin/bash",
                      environment: [String: String] = [:]) throws -> Result {
        try runProcess(shell, ["-c", script], in: directory, stdin: nil, environment: environment.merging(["SLUICE": path]) { $1 })
    }

    private static func runProcess(_ executable: String, _ arguments: [String], in directory: String, stdin: String?,
                                   environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let outPath = directory + "/.stdout-\(UUID().uuidString)"
        let errPath = directory + "/.stderr-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        let outHandle = FileHandle(forWritingAtPath: outPath)!
        let errHandle = FileHandle(forWritingAtPath: errPath)!
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = stdin.map { FileHandle(forReadingAtPath: $0)! } ?? FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(status: process.terminationStatus,
                      stdout: Array(FileManager.default.contents(atPath: outPath) ?? Data()),
                      stderr: String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self))
    }
}

/// The repository root, for `pipelines/`.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Splits NDJSON bytes into lines (without their newlines).
func ndjsonLines(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast(bytes.last == 0x0A ? 1 : 0).map(Array.init)
}
