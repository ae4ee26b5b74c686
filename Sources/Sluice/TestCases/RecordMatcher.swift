// Unsafe code: a key's UTF-8 is passed to `JSONDocument.member` as an
// `UnsafeRawBufferPointer` (`withUTF8`), the form the look-up takes; the
// pointer is used only during the call.

import SluiceJSON

/// Matches an expected record against a received one as a subset: every key
/// the expectation lists must be there with an equal value; keys it does not
/// list are free.
///
/// - objects: subsets, recursively; `!absent` says the key must not be there;
/// - arrays: the same length, element by element (elements that are objects are subsets too);
/// - strings: the same text after unescaping; booleans and null: the same;
/// - numbers: the same value, exactly (`1.5` matches `1.50`, 2^63 does not match 2^63 + 1),
///   and a number never matches a string (`5` is not `"5"`).
public enum RecordMatcher {
    /// One difference: where, what was expected, and what was there.
    public struct Mismatch: Sendable, Equatable, CustomStringConvertible {
        /// The field's path: `properties.movie_id`, `events[0].name`, `properties["Avatar Changed"]`; empty for the record itself.
        public var path: String
        public var expected: String
        public var got: String

        public var description: String {
            (path.isEmpty ? "" : path + ": ") + "expected \(expected), got \(got)"
        }
    }

    /// How much of a received value a mismatch shows.
    static let shownBytes = 200

    /// The differences between `expected` and the value at `node` of `document` (nil: absent).
    public static func mismatches(_ expected: JSONValue, _ document: JSONDocument, _ node: Int? = 0) -> [Mismatch] {
        var found: [Mismatch] = []
        compare(expected, document, node, path: "", into: &found)
        return found
    }

    private static func compare(_ expected: JSONValue, _ document: JSONDocument, _ node: Int?, path: String,
                                into found: inout [Mismatch]) {
        guard let node else {
            if case .absent = expected { return }
            found.append(Mismatch(path: path, expected: shown(expected), got: "absent"))
            return
        }
        let kind = document.kind(node)
        switch expected {
        case .absent:
            found.append(Mismatch(path: path, expected: "absent", got: shown(document, node)))
        case .object(let members):
            guard kind == .object else {
                found.append(Mismatch(path: path, expected: "an object " + shown(expected), got: shown(document, node)))
                return
            }
            for (key, value) in members {
                var keyBytes = key
                let child = keyBytes.withUTF8 { document.member(UnsafeRawBufferPointer($0), of: node) }
                compare(value, document, child, path: join(path, key), into: &found)
            }
        case .array(let items):
            let elements = kind == .array ? document.elements(of: node) : []
            guard kind == .array, elements.count == items.count else {
                let what = kind == .array ? "\(elements.count) elements " : ""
                found.append(Mismatch(path: path, expected: "\(items.count) elements " + shown(expected), got: what + shown(document, node)))
                return
            }
            for (index, (item, element)) in zip(items, elements).enumerated() {
                compare(item, document, element, path: path + "[\(index)]", into: &found)
            }
        case .string(let text):
            let equal = kind == .string && (document.withString(node) { $0.elementsEqual(text.utf8) } ?? false)
            if !equal { found.append(Mismatch(path: path, expected: shown(expected), got: shown(document, node))) }
        case .number(let text):
            let equal = kind == .number && JSONNumberText.sameValue(document.rawBytes(node), text.utf8)
            if !equal { found.append(Mismatch(path: path, expected: shown(expected), got: shown(document, node))) }
        case .boolean(let value):
            if kind != (value ? .true : .false) { found.append(Mismatch(path: path, expected: shown(expected), got: shown(document, node))) }
        case .null:
            if kind != .null { found.append(Mismatch(path: path, expected: "null", got: shown(document, node))) }
        }
    }

    /// `parent.key`, or `parent["odd key"]` when the key is not a plain identifier.
    static func join(_ path: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == "$" }
            && !(key.unicodeScalars.first!.isASCIIDigit)
        if plain { return path.isEmpty ? key : path + "." + key }
        var quoted: [UInt8] = []
        JSONString.appendQuoted(key, to: &quoted)
        return path + "[" + String(decoding: quoted, as: UTF8.self) + "]"
    }

    static func shown(_ expected: JSONValue) -> String { cut(expected.json) }

    static func shown(_ document: JSONDocument, _ node: Int) -> String {
        var text: [UInt8] = []
        document.write(node: node, to: &text)
        return cut(text)
    }

    /// At most `shownBytes` of `text`, cut on a character boundary, with `…` when cut.
    static func cut(_ text: [UInt8]) -> String {
        guard text.count > shownBytes else { return String(decoding: text, as: UTF8.self) }
        return String(decoding: TextLimit.cutUTF8(text, maxBytes: shownBytes), as: UTF8.self) + "…"
    }
}
