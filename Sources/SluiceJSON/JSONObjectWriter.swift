/// Builds a small JSON object as text, keys in insertion order.
public struct JSONObjectWriter {
    private var parts: [String] = []

    public init() {}

    public mutating func raw(_ key: String, _ json: String) {
        var bytes: [UInt8] = []
        JSONString.appendQuoted(key, to: &bytes)
        parts.append(String(decoding: bytes, as: UTF8.self) + ":" + json)
    }

    public mutating func field(_ key: String, _ value: Int) { raw(key, String(value)) }
    public mutating func field(_ key: String, _ value: Bool) { raw(key, value ? "true" : "false") }
    public mutating func field(_ key: String, _ value: String) {
        var bytes: [UInt8] = []
        JSONString.appendQuoted(value, to: &bytes)
        raw(key, String(decoding: bytes, as: UTF8.self))
    }

    public mutating func object(_ key: String, _ pairs: [(String, Int)]) {
        var inner = JSONObjectWriter()
        for (name, value) in pairs { inner.field(name, value) }
        raw(key, inner.text)
    }

    public var text: String { "{" + parts.joined(separator: ",") + "}" }
}
