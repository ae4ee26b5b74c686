import SluiceJSON

/// An event or screen name as a dictionary key, hashed as one block of bytes:
/// `[UInt8]`'s own hashing feeds the hasher a byte at a time, which showed up
/// in profiles of the plan stage (a look-up per event).
struct NameKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        ByteSpans.combine(bytes, into: &hasher)
    }

    static func == (lhs: NameKey, rhs: NameKey) -> Bool { lhs.bytes == rhs.bytes }
}
