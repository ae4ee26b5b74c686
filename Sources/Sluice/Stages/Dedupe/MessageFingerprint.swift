#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// The two hashes the `dedupe` stage keeps of a message: its `messageId`, and
/// its payload (everything else but the ignored fields).
///
/// The payload hash is the sum of one hash per top-level member (key and
/// value), so the order of the top-level keys does not matter; values are
/// compared as canonical JSON text (insignificant whitespace removed, earlier
/// stages' edits applied), so a retry re-serialized with other spacing is still
/// the same message. Nested key order and string escapes do count.
struct MessageFingerprint {
    private static let messageID = Array("messageId".utf8)
    private let ignored: [[UInt8]]
    /// Bit `count % 64` set for each ignored name's length: most keys are told apart by it.
    private let ignoredLengths: UInt64
    private var scratch: [UInt8] = []

    init(ignoreFields: [String]) {
        ignored = [Self.messageID] + ignoreFields.map { Array($0.utf8) }
        ignoredLengths = ignored.reduce(0) { $0 | 1 << UInt64($1.count & 63) }
        scratch.reserveCapacity(1024)
    }

    /// The hash of the message's id (never 0), or nil when it has none: no
    /// `messageId`, or one that is no id by `MessageIdentity`'s rule (null, "",
    /// blank). A number is the id of its text, the same as that string.
    func idHash(_ document: JSONDocument) -> UInt64? {
        guard let node = MessageIdentity.member(document, MessageIdentity.messageID) else { return nil }
        let hash = MessageIdentity.withText(document, node) { StableHash.hash($0, seed: StableHash.seedA) }
        return hash == 0 ? 1 : hash
    }

    /// `idHash` and `payloadHash` of an event lent whole: a stage's event arrives
    /// in memory, and a document loaded out of it for a call is retained for the call.
    func idHash(of event: borrowing Event) -> UInt64? { idHash(event.document) }
    mutating func payloadHash(of event: borrowing Event) -> UInt64 { payloadHash(event.document) }

    /// The id's text for a renamed id (empty when the message has no id).
    func idText(_ document: JSONDocument) -> [UInt8] {
        guard let node = MessageIdentity.member(document, MessageIdentity.messageID) else { return [] }
        return MessageIdentity.text(document, node)
    }

    /// The hash of every top-level member but `messageId` and the ignored fields.
    mutating func payloadHash(_ document: JSONDocument) -> UInt64 {
        if document.isModified || document.hasInsignificantWhitespace { return canonicalPayloadHash(document) }
        // The common case: hash each member's bytes where they are.
        // The names read into a local: the closure then reads no field of `self`, which would copy them per member.
        let ignored = self.ignored, ignoredLengths = self.ignoredLengths
        return document.withView { view in
            var sum: UInt64 = 0
            let end = view.after(0)
            var index = 1
            while index < end {
                let key = index, value = index + 1
                index = view.after(value)
                let escaped = view.hasEscapes(key)
                let keyHash = view.withSpan(of: key) { keyBytes -> UInt64? in
                    (escaped || ignoredLengths & 1 << UInt64((keyBytes.count - 2) & 63) != 0)
                        && MessageFingerprint.isIgnored(keyBytes, escaped: escaped, ignored) ? nil : StableHash.hash(keyBytes)
                }
                guard let keyHash else { continue }
                sum &+= view.withSpan(of: value) { StableHash.hash($0, seed: keyHash) }
            }
            return sum
        }
    }

    /// The same sum over canonical text: whitespace dropped, earlier stages' edits applied.
    private mutating func canonicalPayloadHash(_ document: JSONDocument) -> UInt64 {
        var sum: UInt64 = 0
        let end = document.after(0)
        var index = 1
        while index < end {
            let keyIndex = index, valueIndex = index + 1
            defer { index = document.after(valueIndex) }
            if document.isRemoved(key: keyIndex) { continue }
            let keyBytes = document.withRawBytes(keyIndex) { Array($0) }
            if MessageFingerprint.isIgnored(keyBytes.span, escaped: document.hasEscapes(keyIndex), ignored) { continue }
            let keyHash = StableHash.hash(keyBytes)
            scratch.removeAll(keepingCapacity: true)
            document.write(node: valueIndex, to: &scratch)
            sum &+= StableHash.hash(scratch, seed: keyHash)
        }
        // Members earlier stages added at the top level.
        for addition in document.addedMembers(of: 0) {
            if ignored.contains(addition.key) { continue }
            scratch.removeAll(keepingCapacity: true)
            JSONString.appendQuoted(addition.key, to: &scratch)
            let keyHash = StableHash.hash(scratch)
            sum &+= StableHash.hash(addition.json, seed: keyHash)
        }
        return sum
    }

    /// Whether a key (its raw JSON text, quotes included) names one of the `ignored` fields.
    private static func isIgnored(_ raw: Span<UInt8>, escaped: Bool, _ ignored: [[UInt8]]) -> Bool {
        let body = raw.extracting(1..<(raw.count - 1))
        if escaped { return ignored.contains(JSONString.unescape(body)) }
        for name in ignored where name.count == body.count && body.count > 0 {
            if ByteSpans.equal(body, name) { return true }
        }
        return false
    }
}
