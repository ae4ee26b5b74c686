/// Builds a small JSON object as text, keys in insertion order.
struct JSONObjectWriter {
    private var parts: [String] = []

    mutating func raw(_ key: String, _ json: String) {
        var bytes: [UInt8] = []
        JSONString.appendQuoted(key, to: &bytes)
        parts.append(String(decoding: bytes, as: UTF8.self) + ":" + json)
    }

    mutating func field(_ key: String, _ value: Int) { raw(key, String(value)) }
    mutating func field(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    mutating func field(_ key: String, _ value: String) {
        var bytes: [UInt8] = []
        JSONString.appendQuoted(value, to: &bytes)
        raw(key, String(decoding: bytes, as: UTF8.self))
    }

    mutating func object(_ key: String, _ pairs: [(String, Int)]) {
        var inner = JSONObjectWriter()
        for (name, value) in pairs { inner.field(name, value) }
        raw(key, inner.text)
    }

    /// A nested group of counters as an object: its counters, then its groups.
    mutating func group(_ group: CounterGroup) {
        var inner = JSONObjectWriter()
        for counter in group.counters { inner.field(counter.name, counter.value) }
        for nested in group.groups { inner.group(nested) }
        raw(group.name, inner.text)
    }

    var text: String { "{" + parts.joined(separator: ",") + "}" }
}
