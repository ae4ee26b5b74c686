import SluiceJSON

/// Redacted object keys kept unique: with key scanning on,
/// `{"a@b.com":1,"c@d.com":2}` would become two `[email]` keys, an object
/// Sluice itself rejects (`duplicate_key`). The first redacted key takes the
/// token; one that would repeat a key of its object (as it came, or as
/// redacted before it) gets `#2`, `#3`, ...: `{"[email]":1,"[email]#2":2}`.
///
/// Only objects with a redacted key are looked at: their keys are read once,
/// and each name taken costs one set look-up (a suffix per token is
/// remembered, so 10,000 `[email]` keys do not try `#2` ... each time).
struct RedactedKeyNames {
    private struct Taken {
        var names: Set<[UInt8]> = []
        /// The last suffix given to each name.
        var suffixes: [[UInt8]: Int] = [:]
    }

    /// By the object's node index, for the event being walked.
    private var objects: [Int: Taken] = [:]

    /// Forgets the previous event's objects.
    @inline(__always)
    mutating func reset() {
        if !objects.isEmpty { objects.removeAll(keepingCapacity: true) }
    }

    /// Makes `body`, the new text of a key of `object` (as written inside the
    /// JSON string), differ from every other key of `object`, by a `#n` suffix if need be.
    mutating func makeUnique(_ body: inout [UInt8], object: Int, in document: JSONDocument) {
        var taken = objects[object] ?? RedactedKeyNames.keys(of: object, document)
        let name = body.contains(UInt8(ascii: "\\")) ? JSONString.unescape(body[...]) : body
        var suffix = taken.suffixes[name] ?? 1
        var candidate = name
        while taken.names.contains(candidate) {
            suffix += 1
            candidate = name + Array("#\(suffix)".utf8)
        }
        taken.suffixes[name] = suffix
        taken.names.insert(candidate)
        objects[object] = taken
        if suffix > 1 { body.append(contentsOf: "#\(suffix)".utf8) }
    }

    private static func keys(of object: Int, _ document: JSONDocument) -> Taken {
        var taken = Taken()
        for (key, _) in document.members(of: object) {
            _ = document.withString(key) { taken.names.insert(Array($0)) }
        }
        return taken
    }
}
