// Unsafe code: `appendInteger` writes its digits into a 24-byte tuple on the
// stack (Int64 needs at most 20), and constant keys are read from their
// `StaticString` storage, valid for the life of the program.

/// Writes one JSON object straight into an output buffer, for provider records.
///
/// Keys given as `StaticString` are trusted constants and copied without
/// escaping; values from events are either copied raw from the input (already
/// valid JSON) or escaped.
public struct JSONObjectEncoder {
    @usableFromInline var first = true

    @inlinable public init() {}

    /// Starts the next member: `{` or `,`, then `"key":`.
    @inlinable @inline(__always)
    public mutating func key<Out: ByteSink>(_ name: StaticString, _ out: inout Out) {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","),
                   UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), quoted: true, UInt8(ascii: ":"))
        first = false
    }

    /// Starts the next member with a key from data (escaped).
    @inlinable public mutating func key<Bytes: Collection, Out: ByteSink>(bytes name: Bytes, _ out: inout Out) where Bytes.Element == UInt8 {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        JSONString.appendQuoted(name, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// Starts the next member with an event's key copied as it is (already a JSON string).
    @inlinable @inline(__always)
    public mutating func key<Out: ByteSink>(_ document: JSONDocument, node: Int, _ out: inout Out) {
        document.appendRaw(node, to: &out, lead: first ? UInt8(ascii: "{") : UInt8(ascii: ","), trail: UInt8(ascii: ":"))
        first = false
    }

    /// A member whose value is a string node of the event, copied as it is.
    @inlinable @inline(__always)
    public mutating func raw<Out: ByteSink>(_ name: StaticString, _ document: JSONDocument, node: Int, _ out: inout Out) {
        key(name, &out)
        document.appendRaw(node, to: &out)
    }

    @inlinable public mutating func string<Out: ByteSink>(_ name: StaticString, _ value: String, _ out: inout Out) {
        key(name, &out)
        JSONString.appendQuoted(value.utf8, to: &out)
    }

    @inlinable public mutating func string<Bytes: Collection, Out: ByteSink>(_ name: StaticString, bytes value: Bytes, _ out: inout Out) where Bytes.Element == UInt8 {
        key(name, &out)
        JSONString.appendQuoted(value, to: &out)
    }

    @inlinable public mutating func integer<Out: ByteSink>(_ name: StaticString, _ value: Int64, _ out: inout Out) {
        key(name, &out)
        appendInteger(value, to: &out)
    }

    /// A whole member written before (`"key":value`, valid JSON), copied as it is.
    @inlinable public mutating func member<Bytes: Collection, Out: ByteSink>(raw text: Bytes, _ out: inout Out) where Bytes.Element == UInt8 {
        out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        out.append(contentsOf: text)
    }

    /// Closes the object (`{}` when nothing was written).
    @inlinable public mutating func close<Out: ByteSink>(_ out: inout Out) {
        if first { out.append(UInt8(ascii: "{")) }
        out.append(UInt8(ascii: "}"))
        first = true
    }

    @inlinable public var isEmpty: Bool { first }
}

/// Appends a decimal integer without going through String: two digits per
/// division, from a table, into a buffer on the stack, then one append (a
/// 13-digit millisecond time is the most common value encoders write).
@inlinable @inline(__always)
public func appendInteger<Out: ByteSink>(_ value: Int64, to out: inout Out) {
    if value >= 0 && value < 10 {
        out.append(UInt8(ascii: "0") + UInt8(value))
        return
    }
    var magnitude = value.magnitude
    // The digits are made on the stack, last first, then appended at once; the
    // pairs come from a constant in the binary (no array, no lazy global).
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &digits) { buffer in
        let digits = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let pairs = IntegerDigits.pairs.utf8Start
        var position = 24
        while magnitude >= 100 {
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 100)
            position &-= 2
            digits[position] = pairs[Int(remainder) &* 2]
            digits[position &+ 1] = pairs[Int(remainder) &* 2 &+ 1]
            magnitude = quotient
        }
        if magnitude >= 10 {
            position &-= 2
            digits[position] = pairs[Int(magnitude) &* 2]
            digits[position &+ 1] = pairs[Int(magnitude) &* 2 &+ 1]
        } else {
            position &-= 1
            digits[position] = UInt8(ascii: "0") &+ UInt8(magnitude)
        }
        if value < 0 {
            position &-= 1
            digits[position] = UInt8(ascii: "-")
        }
        out.append(raw: UnsafeRawBufferPointer(start: digits + position, count: 24 &- position))
    }
}

@usableFromInline
enum IntegerDigits {
    /// "00", "01", ... "99", end to end.
    @inlinable static var pairs: StaticString { "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" }
}
