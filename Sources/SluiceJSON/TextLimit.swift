// Unsafe code: `scalarCount` loads eight bytes at a time only while eight
// remain, then byte by byte.

/// Cutting strings to a provider's limit without breaking UTF-8.
///
/// Limits are in bytes of UTF-8 (Mixpanel: "255 bytes") or in characters,
/// counted as Unicode scalars (Amplitude 1024, GA4 100/36). A cut never splits
/// a character. The common case, a value already within the limit, is one copy
/// of its raw JSON text.
public enum TextLimit {
    /// Appends the string at `node` as JSON, cut to at most `maxBytes` bytes of
    /// UTF-8 and `maxScalars` characters; returns whether it was cut.
    @inlinable
    public static func appendString<Out: ByteSink>(_ document: JSONDocument, _ node: Int, maxBytes: Int = .max, maxScalars: Int = .max,
                             to out: inout Out) -> Bool {
        let current = document.tape[node]
        let rawBody = Int(current.end - current.start) - 2
        // Decoded text is never longer than its JSON form, in bytes or in characters.
        if rawBody <= maxBytes && rawBody <= maxScalars {
            document.appendRaw(node, to: &out)
            return false
        }
        return document.withString(node) { decoded in
            appendCut(decoded, maxBytes: maxBytes, maxScalars: maxScalars, to: &out)
        } ?? false
    }

    /// Appends `bytes` (valid UTF-8) as a JSON string cut to the limits; returns whether it was cut.
    @inlinable @discardableResult
    public static func appendCut<Bytes: Collection, Out: ByteSink>(_ bytes: Bytes, maxBytes: Int = .max, maxScalars: Int = .max,
                                             to out: inout Out) -> Bool where Bytes.Element == UInt8 {
        let length = prefixLength(bytes, maxBytes: maxBytes, maxScalars: maxScalars)
        JSONString.appendQuoted(bytes.prefix(length), to: &out)
        return length < bytes.count
    }

    /// Appends the value at `node` as JSON with every string in it, at any
    /// depth, cut to the limits (keys are left alone); returns how many strings were cut.
    @inlinable
    public static func appendValue<Out: ByteSink>(_ document: JSONDocument, _ node: Int, maxBytes: Int = .max, maxScalars: Int = .max,
                            to out: inout Out) -> Int {
        let current = document.tape[node]
        // No string inside can be longer than the whole value's text.
        let raw = Int(current.end - current.start)
        if raw - 2 <= maxBytes && raw - 2 <= maxScalars {
            appendRaw(document, node, to: &out)
            return 0
        }
        switch current.kind {
        case .string:
            return appendString(document, node, maxBytes: maxBytes, maxScalars: maxScalars, to: &out) ? 1 : 0
        case .object:
            var cut = 0
            var first = true
            out.append(UInt8(ascii: "{"))
            document.forEachMember(of: node) { key, value in
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                document.appendRaw(key, to: &out)
                out.append(UInt8(ascii: ":"))
                cut += appendValue(document, value, maxBytes: maxBytes, maxScalars: maxScalars, to: &out)
            }
            out.append(UInt8(ascii: "}"))
            return cut
        case .array:
            var cut = 0
            out.append(UInt8(ascii: "["))
            var index = node + 1
            let end = Int(current.next)
            while index < end {
                if index > node + 1 { out.append(UInt8(ascii: ",")) }
                cut += appendValue(document, index, maxBytes: maxBytes, maxScalars: maxScalars, to: &out)
                index = Int(document.tape[index].next)
            }
            out.append(UInt8(ascii: "]"))
            return cut
        case .number, .true, .false, .null:
            appendRaw(document, node, to: &out)
            return 0
        }
    }

    /// Appends a value as compact JSON: its raw text when that already is.
    @inlinable @inline(__always)
    public static func appendRaw<Out: ByteSink>(_ document: JSONDocument, _ node: Int, to out: inout Out) {
        let kind = document.tape[node].kind
        if (kind != .object && kind != .array) || (!document.hasInsignificantWhitespace && !document.isModified) {
            document.appendRaw(node, to: &out)
        } else {
            document.write(node: node, to: &out)
        }
    }

    /// The length of the longest prefix within both limits that ends on a character boundary.
    @inlinable
    public static func prefixLength<Bytes: Collection>(_ bytes: Bytes, maxBytes: Int = .max, maxScalars: Int = .max) -> Int
    where Bytes.Element == UInt8 {
        if bytes.count <= maxBytes && bytes.count <= maxScalars { return bytes.count }
        var scalars = 0
        var length = 0
        var remaining = bytes.makeIterator()
        while let lead = remaining.next() {
            let width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            if length + width > maxBytes || scalars + 1 > maxScalars { break }
            for _ in 1..<width { _ = remaining.next() }
            length += width
            scalars += 1
        }
        return min(length, bytes.count)
    }

    /// The longest prefix within both limits that ends on a character boundary.
    public static func cutUTF8(_ bytes: [UInt8], maxBytes: Int = .max, maxScalars: Int = .max) -> ArraySlice<UInt8> {
        bytes[..<prefixLength(bytes, maxBytes: maxBytes, maxScalars: maxScalars)]
    }

    /// The number of characters (Unicode scalars) in valid UTF-8: bytes that do not continue a character.
    @inlinable @inline(__always)
    public static func scalarCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        // Bytes minus continuation bytes (10xxxxxx), counted eight at a time:
        // a byte's bit 7 set and bit 6 clear.
        var continuations = 0
        var index = 0
        let count = bytes.count
        while index &+ 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let highs: UInt64 = 0x8080_8080_8080_8080
            continuations &+= (word & highs & ~(word << 1)).nonzeroBitCount
            index &+= 8
        }
        while index < count {
            if bytes[index] & 0xC0 == 0x80 { continuations &+= 1 }
            index &+= 1
        }
        return count &- continuations
    }
}
