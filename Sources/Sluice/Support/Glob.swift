/// Glob matching on bytes: `*` matches any run of bytes, `?` exactly one.
public enum Glob {
    public static func matches(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        // `*` alone (every destination's default `events:`) takes any name at once.
        if pattern.count == 1 && pattern[0] == UInt8(ascii: "*") { return true }
        var p = 0, t = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
