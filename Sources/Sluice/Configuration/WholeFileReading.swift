/// Reads a whole (small) file as UTF-8.
func readFile(_ path: String) throws -> String {
    String(decoding: try readFileBytes(path), as: UTF8.self)
}

/// Reads a whole (small) file's bytes.
func readFileBytes(_ path: String) throws -> [UInt8] {
    let reader = try FileByteSource.open(path)
    defer { reader.close() }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[..<n])
    }
    return bytes
}
