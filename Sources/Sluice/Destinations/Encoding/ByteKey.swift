/// Bytes as a dictionary key hashed in one call: `[UInt8]`'s own `Hashable`
/// feeds the hasher byte by byte, which shows when a name is looked up for
/// every event (routing decisions, name caches, token tables).
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        hasher.combine(StableHash.hash(bytes))
    }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.bytes == rhs.bytes }
}
