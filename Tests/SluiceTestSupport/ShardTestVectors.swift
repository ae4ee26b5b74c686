import Foundation

/// The shard function's test vectors, read from the table docs/operations.md
/// gives them in, so the docs and the tests cannot drift apart: the unit
/// tests check each hash, the end-to-end tests what `sluice shard-of` prints.
public struct ShardTestVector: Sendable {
    /// The input line, as written in the table.
    public var line: String
    /// The device id's text, nil for a line `run` rejects at input.
    public var deviceID: String?
    public var hash: UInt64?
    /// The shard for each N of `ShardTestVector.columns`.
    public var shards: [Int: UInt64]
    public var timeMilliseconds: Int64

    /// The N of the table's shard columns, in order.
    public static let columns = [2, 16, 1000]

    /// The rows between the docs' two markers, in order (they are one input).
    public static func read(repositoryRoot: String) throws -> [ShardTestVector] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/operations.md", encoding: .utf8)
        guard let start = text.range(of: "<!-- shard-of test vectors"),
              let end = text.range(of: "<!-- end of the shard-of test vectors") else { return [] }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("| `{") }.map { row in
            let cells = Array(row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast())
                .map { $0.trimmingCharacters(in: .whitespaces) }
            func code(_ cell: String) -> String? {
                cell.hasPrefix("`") && cell.hasSuffix("`") ? String(cell.dropFirst().dropLast()) : nil
            }
            var shards: [Int: UInt64] = [:]
            for (index, n) in columns.enumerated() { shards[n] = UInt64(cells[3 + index]) }
            return ShardTestVector(line: code(cells[0]) ?? "", deviceID: code(cells[1]),
                                   hash: code(cells[2]).flatMap { UInt64($0, radix: 16) },
                                   shards: shards, timeMilliseconds: Int64(cells[6]) ?? .min)
        }
    }
}
