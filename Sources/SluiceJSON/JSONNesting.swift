/// How deep a JSON value nests, measured on its text the way `JSONParser`
/// counts it: every object and array is one level, the outermost the first.
///
/// A stage that copies a value from one message into a deeper place of
/// another (`session` puts a `settings` object under `context.session`) asks
/// this first, so no event it writes nests past `JSONParser.maxDepth` and
/// every output line is read back by Sluice under the limit its input had.
public enum JSONNesting {
    /// The deepest level of objects and arrays in `json`, one JSON value that
    /// parsed before (brackets inside strings do not count): 0 for a scalar, 1 for `{}`.
    @inlinable
    public static func depth(of json: some Sequence<UInt8>) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > deepest { deepest = depth }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
