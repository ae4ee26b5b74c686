// Unsafe code: the test's HTTP client hands request bytes to write(2) and
// reads the answer with read(2) through `withUnsafeBytes` over arrays, and
// fills a `sockaddr_in` for connect(2) through `withUnsafePointer`.

import Foundation
import SluiceTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `sluice serve` running in the background on an ephemeral loopback port.
final class ServeProcess {
    let process: SluiceProcess
    let port: Int

    /// Starts `sluice serve ARGS --listen 127.0.0.1:PORT --port-file F` in `directory` (port 0: any free
    /// port) and waits until it listens.
    /// `fileSizeLimit`: bash's `ulimit -f` (1024-byte blocks) for the server, so its writes past it fail (EFBIG), as on a full disk.
    /// `setup`: bash commands run first, in `directory`; `launcher`: a command the whole runs under (`unshare -m`).
    init(_ arguments: [String], in directory: TemporaryDirectory, keys: String = "k1,k2", fileSizeLimit: Int? = nil,
         setup: String? = nil, launcher: [String] = [], environment: [String: String] = [:], port: Int = 0) throws {
        let portFile = directory.file("port-\(UUID().uuidString)")
        let serve = ["serve", "--listen", "127.0.0.1:\(port)", "--port-file", portFile, "--write-key-env", "SERVE_KEYS"] + arguments
        let process: SluiceProcess
        let environment = environment.merging(["SERVE_KEYS": keys]) { $1 }
        if fileSizeLimit != nil || setup != nil || !launcher.isEmpty {
            let quoted = serve.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let steps = [setup, fileSizeLimit.map { "ulimit -f \($0)" }].compactMap { $0 } + ["exec \"$SLUICE\" \(quoted)"]
            let script = ["-c", steps.joined(separator: " && ")]
            process = try SluiceProcess(launcher.isEmpty ? script : Array(launcher.dropFirst()) + ["/bin/bash"] + script, in: directory.path,
                                        executable: launcher.first ?? "/bin/bash", environment: environment)
        } else {
            process = try SluiceProcess(serve, in: directory.path, environment: environment)
        }
        var port = 0
        _ = waitUntil(timeout: 60) {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                port = value
                return true
            }
            return !process.process.isRunning
        }
        self.process = process
        self.port = port
        if port == 0 { throw ServeTestError.didNotListen(process.stderr) }
    }
}

enum ServeTestError: Error {
    case didNotListen(String)
}

/// A connected TCP socket to 127.0.0.1:`port` (reads time out after 30 s), or nil.
func connectLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// Sends all of `bytes` (stopping at an error: the server may close first).
func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
    var sent = 0
    while sent < bytes.count {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { break }
        sent += n
    }
}

/// What the server sends until it closes (or 30 s pass), as status, body and head; nil when nothing came.
func readAnswer(_ fd: Int32) -> (status: Int, body: String, head: String)? {
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        answer += chunk[0..<n]
    }
    let text = String(decoding: answer, as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return nil }
    let end = text.range(of: "\r\n\r\n")
    let bodyText = end.map { String(text[$0.upperBound...]) } ?? ""
    return (status, bodyText, end.map { String(text[..<$0.lowerBound]) } ?? text)
}

/// One HTTP/1.1 exchange over a fresh loopback connection (`Connection: close`):
/// the status and body, or nil when the connection failed or closed with no answer.
func httpExchange(port: Int, method: String = "POST", path: String, body: [UInt8] = [], headers: [String: String] = [:],
                  contentLength: Int? = nil) -> (status: Int, body: String, head: String)? {
    guard let fd = connectLoopback(port: port) else { return nil }
    defer { close(fd) }
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(contentLength ?? body.count)\r\n\r\n"
    sendAll(fd, Array(head.utf8) + body)
    return readAnswer(fd)
}

/// `Authorization: Basic` with `key` as the user name and no password, as the SDKs send it.
func basicAuth(_ key: String) -> [String: String] {
    ["Authorization": "Basic " + Data("\(key):".utf8).base64EncodedString(), "Content-Type": "application/json"]
}

/// A batch of tracks with messageIds `m<first>` ... and fixed timestamps (so a re-sent one is the same message).
func trackBatch(_ range: Range<Int>) -> [UInt8] {
    let items = range.map { i in
        let minute = String(format: "%02d", (i / 60) % 60), second = String(format: "%02d", i % 60)
        return #"{"type":"track","event":"Song Played","userId":"u\#(i % 7)","messageId":"m\#(i)","timestamp":"2026-11-20T10:\#(minute):\#(second).000Z","properties":{"i":\#(i)}}"#
    }
    return Array(#"{"batch":["#.utf8) + Array(items.joined(separator: ",").utf8) + Array(#"],"sentAt":"2026-11-20T11:00:00.000Z"}"#.utf8)
}

/// Every record of a destination's finished files under `out` (not under `.sluice-serve`), as JSON objects.
func records(in directory: TemporaryDirectory, out: String, destination: String) -> [[String: Any]] {
    gunzipFiles(directory, under: out + "/" + destination + "/").flatMap(\.lines).map {
        (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] ?? [:]
    }
}
