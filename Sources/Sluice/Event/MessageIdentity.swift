// Unsafe code: ids are read as `UnsafeRawBufferPointer`s into the event's
// bytes or decoded string, and keys as a `StaticString`'s UTF-8, so checking
// and hashing every message's ids copies nothing on the reading thread. A
// pointer is used only inside the closure it is lent to, while the document
// (or the static string, which lives forever) holds the bytes.

import SluiceJSON

/// The one rule for a message's ids (`userId`, `anonymousId`, `messageId`),
/// applied alike by the input check, every stage (dedupe keys, session and
/// timer keys) and every destination (identity fields, insert ids):
///
/// - a string with at least one character that is not white space is an id,
///   its decoded text;
/// - a JSON number is an id, its text exactly as written (`42` is the id
///   `"42"`, and the same id as the string `"42"`); providers get it as a string;
/// - an empty or white-space-only string, `null`, a boolean, an object or an
///   array is no id: the field counts as absent.
///
/// Providers treat an empty id as a real one (Mixpanel files every event with
/// `distinct_id: ""` under one user, Amplitude and Mixpanel drop events that
/// share an insert id), so an absent id must never be written as `""`.
enum MessageIdentity {
    static let userID: StaticString = "userId"
    static let anonymousID: StaticString = "anonymousId"
    static let messageID: StaticString = "messageId"

    /// `node` if it holds an id by the rule above, else nil.
    @inline(__always)
    static func id(_ document: JSONDocument, _ node: Int?) -> Int? {
        guard let node else { return nil }
        switch document.kind(node) {
        case .number:
            return node
        case .string:
            return document.withString(node) { isBlank($0) } == false ? node : nil
        default:
            return nil
        }
    }

    /// The top-level member `key` if it holds an id.
    static func member(_ document: JSONDocument, _ key: StaticString) -> Int? {
        let raw = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        return id(document, document.member(raw))
    }

    /// Calls `body` with the id's text: a string's decoded UTF-8, a number's JSON text.
    /// `node` must be one `id(_:_:)` accepted.
    @inline(__always)
    static func withText<R>(_ document: JSONDocument, _ node: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if document.kind(node) == .string { return document.withString(node, body)! }
        return document.withRawBytes(node, body)
    }

    /// `withText`, the text lent as a span.
    @inline(__always)
    static func withTextSpan<R>(_ document: JSONDocument, _ node: Int, _ body: (Span<UInt8>) -> R) -> R {
        if document.kind(node) == .string { return document.withStringSpan(node, body)! }
        return document.withSpan(of: node, body)
    }

    /// The id's text as bytes.
    static func text(_ document: JSONDocument, _ node: Int) -> [UInt8] {
        withText(document, node) { Array($0) }
    }

    /// Appends the id as a JSON string: a string as it is in the message (escapes
    /// kept), a number's text in quotes.
    @inline(__always)
    static func appendQuoted<Out: ByteSink>(_ document: JSONDocument, _ node: Int, to out: inout Out) {
        if document.kind(node) == .string {
            document.appendRaw(node, to: &out)
        } else {
            document.appendRaw(node, to: &out, lead: UInt8(ascii: "\""), trail: UInt8(ascii: "\""))
        }
    }

    /// Whether decoded UTF-8 text is empty or only white space: ASCII space,
    /// tab, line feed, vertical tab, form feed, carriage return, and the Unicode
    /// spaces (U+0085, U+00A0, U+1680, U+2000–U+200B, U+2028, U+2029, U+202F,
    /// U+205F, U+3000, U+FEFF).
    static func isBlank(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            if byte < 0x80 {
                guard byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) else { return false }
                index += 1
                continue
            }
            // Multi-byte: decode the scalar (the text is valid UTF-8).
            let scalar: UInt32
            let length: Int
            if byte < 0xE0 {
                guard index + 1 < count else { return false }
                scalar = UInt32(byte & 0x1F) << 6 | UInt32(text[index + 1] & 0x3F)
                length = 2
            } else if byte < 0xF0 {
                guard index + 2 < count else { return false }
                scalar = UInt32(byte & 0x0F) << 12 | UInt32(text[index + 1] & 0x3F) << 6 | UInt32(text[index + 2] & 0x3F)
                length = 3
            } else {
                return false
            }
            switch scalar {
            case 0x85, 0xA0, 0x1680, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: break
            default: return false
            }
            index += length
        }
        return true
    }
}

extension JSONObjectEncoder {
    /// A member whose value is one of the message's ids (`MessageIdentity`), always a JSON string.
    @inline(__always)
    mutating func id<Out: ByteSink>(_ name: StaticString, _ document: JSONDocument, node: Int, _ out: inout Out) {
        key(name, &out)
        MessageIdentity.appendQuoted(document, node, to: &out)
    }
}
