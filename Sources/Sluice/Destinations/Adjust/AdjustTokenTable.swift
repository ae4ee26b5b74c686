/// Event name → Adjust event token, asked for every track event routed to
/// Adjust: a few entries are compared in place, many are hashed.
struct TokenTable {
    private let small: [(name: [UInt8], token: [UInt8])]
    private let large: [ByteKey: [UInt8]]

    init(_ tokens: [[UInt8]: [UInt8]]) {
        if tokens.count <= 8 {
            small = tokens.map { ($0.key, $0.value) }
            large = [:]
        } else {
            small = []
            large = Dictionary(uniqueKeysWithValues: tokens.map { (ByteKey($0.key), $0.value) })
        }
    }

    subscript(name: [UInt8]) -> [UInt8]? {
        if large.isEmpty {
            for entry in small where entry.name == name { return entry.token }
            return nil
        }
        return large[ByteKey(name)]
    }
}
