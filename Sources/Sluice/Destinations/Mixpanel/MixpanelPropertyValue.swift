import SluiceJSON

/// A property's value as Mixpanel keeps it. [import] "All nested object
/// properties must have fewer than 255 keys. All array properties must have
/// fewer than 255 elements"; [types] strings are cut at 255 bytes, "List
/// properties: Max 8KB per event property", objects "Max 8KB, up to 255 keys
/// per nested object, max nesting depth of 3"; profiles' lists and objects
/// up to 256KB ([types]). An event over those limits is refused by `/import`
/// whole, so Sluice cuts the value instead and counts it: a list keeps its
/// first elements, an object its first keys, as many as fit; a list or object
/// nested deeper than three levels is left out.
///
/// [import]: https://developer.mixpanel.com/reference/import-events
/// [types]: https://docs.mixpanel.com/docs/data-structure/property-reference/data-type
struct MixpanelPropertyValue {
    /// Elements of a list and keys of an object, at most.
    let maxMembers: Int
    /// Levels of lists and objects: the property's own value is level 1.
    let maxDepth: Int
    /// Bytes of a list or object property as JSON.
    let maxBytes: Int

    static let event = MixpanelPropertyValue(maxMembers: 254, maxDepth: 3, maxBytes: 8 * 1024)
    static let profile = MixpanelPropertyValue(maxMembers: .max, maxDepth: .max, maxBytes: 256 * 1024)

    /// What was cut writing one value.
    struct Cuts {
        var strings = 0
        var collections = 0
    }

    /// Appends the value at `node`, cut to the limits.
    func append<Out: ByteSink>(_ document: JSONDocument, _ node: Int, to out: inout Out) -> Cuts {
        var cuts = Cuts()
        let kind = document.kind(node)
        if kind == .object || kind == .array {
            if document.isModified {
                // A stage's edits (a pseudonymized or added member) live beside the line: the value as edited, read afresh.
                var text: [UInt8] = []
                document.write(node: node, to: &text)
                if let edited = try? JSONDocument.parse(text) {
                    _ = appendCollection(edited, 0, depth: 1, start: out.count, to: &out, &cuts)
                    return cuts
                }
            }
            _ = appendCollection(document, node, depth: 1, start: out.count, to: &out, &cuts)
        } else {
            cuts.strings = TextLimit.appendValue(document, node, maxBytes: MixpanelDestination.maxStringBytes, to: &out)
        }
        return cuts
    }

    /// Appends the list or object at `node`, a member at a time. A member
    /// that would take the whole property's value (from `start`, closing
    /// brackets included) past `maxBytes` is taken back whole, a list or
    /// object with it: a product of a cart is sent whole or not at all.
    /// Returns false once the value is full, so the lists and objects around
    /// it stop too (the property's own value counts that cut, once).
    private func appendCollection<Out: ByteSink>(_ document: JSONDocument, _ node: Int, depth: Int, start: Int,
                                                 to out: inout Out, _ cuts: inout Cuts) -> Bool {
        let isObject = document.kind(node) == .object
        out.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        var members = 0
        var room = true
        var cut = false
        var index = node + 1
        let end = document.after(node)
        while index < end {
            let key = isObject ? index : -1
            let value = isObject ? index + 1 : index
            index = document.after(value)
            if isObject && document.isRemoved(key: key) { continue }
            if members == maxMembers {
                cut = true
                break
            }
            let mark = out.count
            if members > 0 { out.append(UInt8(ascii: ",")) }
            if isObject {
                document.appendRaw(key, to: &out)
                out.append(UInt8(ascii: ":"))
            }
            let kind = document.kind(value)
            if kind == .object || kind == .array {
                if depth == maxDepth {
                    out.removeSubrange(mark...)
                    cut = true
                    continue
                }
                room = appendCollection(document, value, depth: depth + 1, start: start, to: &out, &cuts)
            } else {
                cuts.strings += TextLimit.appendValue(document, value, maxBytes: MixpanelDestination.maxStringBytes, to: &out)
            }
            // Every list and object still open needs its closing bracket.
            if !room || out.count - start + depth > maxBytes {
                out.removeSubrange(mark...)
                room = false
                if depth == 1 { cut = true }
                break
            }
            members += 1
        }
        out.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        if cut { cuts.collections += 1 }
        return room
    }
}
