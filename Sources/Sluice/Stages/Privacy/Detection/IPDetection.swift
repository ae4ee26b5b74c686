import SluiceJSON

/// Finds IPv4 and IPv6 addresses in free text, and parses and formats them for
/// truncation.
///
/// IPv4: four dotted decimal octets (0-255) standing alone: `v1.2.3.4`,
/// `1.2.3.4.5` and `1.2.3.4-beta` are versions, not addresses. IPv6 (RFC 4291
/// text forms): eight groups, or fewer with one `::`, optionally ending in a
/// dotted IPv4; at least two groups and one decimal digit, so `::1` (the
/// loopback) and words such as `dead::beef` are left alone, and times
/// (`08:00:07`) and MAC addresses (six groups) never parse. IPv6 is found
/// glued to letters and punctuation too (`ip:fe80::1%eth0,`).
enum IPDetection {
    // MARK: - Scanning

    /// Dotted quads, except where they are versions: after a version word
    /// (`version 16.4.27.43`, `Build 10.0.19045.3693`, `iOS 16.4.1.2`), after a
    /// product name and a slash (`Chrome/116.0.5845.187`), before or after
    /// another dotted part, in a field whose name says version or build, or
    /// shaped as versions are (`12.20.51.10`: small first and second parts)
    /// or in identifier context (`Invoice: 21.38.75.31`, a field `po_number`:
    /// `PhoneContext`) with nothing saying address (`ip`, `host`, a URL's
    /// `//`, a `:port`).
    static func scanIPv4(_ text: Span<UInt8>, fieldName: Span<UInt8> = Span<UInt8>(),
                         _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        var fieldSaysVersion: Bool?
        var fieldNamesIdentifier: Bool?
        while index < count {
            guard TextBytes.isDigit(text[index]), TextBytes.startsToken(text, index),
                  index == 0 || text[index - 1] != UInt8(ascii: ".") else {
                index += 1
                continue
            }
            if let end = ipv4End(text, from: index), TextBytes.endsToken(text, end),
               end == count || !(text[end] == UInt8(ascii: ".") && end + 1 < count && TextBytes.isDigit(text[end + 1])),
               !followsVersionWord(text, index) {
                if fieldSaysVersion == nil { fieldSaysVersion = VersionWords.fieldSaysVersion(fieldName) }
                if fieldNamesIdentifier == nil { fieldNamesIdentifier = PhoneContext.namesSpecificIdentifier(fieldName) }
                // In identifier context (`Invoice: 21.38.75.31`, a field `po_number`) only what says address makes one.
                let identifier = fieldNamesIdentifier == true || PhoneContext.wordsBefore(text, index) == .notPhone
                if fieldSaysVersion == false
                    && ((!identifier && !VersionWords.hasVersionShape(text, index, end))
                        || VersionWords.saysAddress(text, index, end, fieldName: fieldName)) {
                    found(index, end)
                }
                index = end
            } else {
                while index < count && TextBytes.isDigit(text[index]) { index += 1 }
            }
        }
    }

    /// Whether the words right before `start` make the number a version: a
    /// version word, or `Name/` as in a user agent (a URL's `//` is not).
    private static func followsVersionWord(_ text: Span<UInt8>, _ start: Int) -> Bool {
        guard start > 0 else { return false }
        if text[start - 1] == UInt8(ascii: "/") {
            return start >= 2 && TextBytes.isASCIIAlnum(text[start - 2])
        }
        var end = start
        while end > 0 && end > start - 2 && (text[end - 1] == UInt8(ascii: " ") || text[end - 1] == UInt8(ascii: ":")) { end -= 1 }
        var begin = end
        while begin > 0 && TextBytes.isASCIILetter(text[begin - 1]) { begin -= 1 }
        guard end > begin else { return false }
        return VersionWords.isVersionWord(text.extracting(begin..<end))
    }

    /// The end of `d.d.d.d` (octets 0-255) at `start`, or nil.
    static func ipv4End(_ text: Span<UInt8>, from start: Int) -> Int? {
        var index = start
        for octet in 0..<4 {
            if octet > 0 {
                guard index < text.count, text[index] == UInt8(ascii: ".") else { return nil }
                index += 1
            }
            var value = 0
            var digits = 0
            while index < text.count && TextBytes.isDigit(text[index]) && digits < 4 {
                value = value * 10 + Int(text[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits >= 1 && digits <= 3 && value <= 255 else { return nil }
        }
        return index
    }

    /// IPv6 in free text, glued forms included: `ip=fe80::1,`, `[2001:db8::1]:443`,
    /// `addr:2001:db8::1`, `src2001:db8::1`, `::ffff:192.0.2.1.` and a zone id
    /// (`fe80::1%eth0`, masked with the address). The structure (colons, at
    /// least two groups and a decimal digit) is distinctive enough that,
    /// unlike the number detectors, an address need not stand alone as a token.
    static func scanIPv6(_ text: Span<UInt8>, _ found: (Int, Int) -> Void) {
        var index = 0
        let count = text.count
        while index < count {
            let byte = text[index]
            guard TextBytes.isHexDigit(byte) || byte == UInt8(ascii: ":") else {
                index += 1
                continue
            }
            var end = index
            while end < count && (TextBytes.isHexDigit(text[end]) || text[end] == UInt8(ascii: ":") || text[end] == UInt8(ascii: ".")) {
                end += 1
            }
            // A sentence may end right after the address, or a port or message follow a colon.
            var stop = end
            while stop > index && text[stop - 1] == UInt8(ascii: ".") { stop -= 1 }
            if stop - index >= 2 && text[stop - 1] == UInt8(ascii: ":") && text[stop - 2] != UInt8(ascii: ":") { stop -= 1 }
            var start = index
            while stop - start >= 2 {
                if let address = parseIPv6(text.extracting(start..<stop)), address.groups >= 2,
                   (start..<stop).contains(where: { TextBytes.isDigit(text[$0]) }) {
                    var matchEnd = stop
                    // A zone id: `%` and an interface name or number.
                    if matchEnd == end && matchEnd + 1 < count && text[matchEnd] == UInt8(ascii: "%") {
                        var zone = matchEnd + 1
                        while zone < count && (TextBytes.isWord(text[zone]) || text[zone] == UInt8(ascii: "-")) { zone += 1 }
                        if zone > matchEnd + 1 { matchEnd = zone }
                    }
                    found(start, matchEnd)
                    end = Swift.max(end, matchEnd)
                    break
                }
                // Not an address as it stands: drop what may be glued on the left (a word's colon, a word's hex tail).
                if text[start] == UInt8(ascii: ":") && text[start + 1] != UInt8(ascii: ":") {
                    start += 1
                    continue
                }
                var group = start
                while group < stop && TextBytes.isHexDigit(text[group]) { group += 1 }
                guard group - start > 4 else { break }
                start = group - 4
            }
            index = end
        }
    }

    // MARK: - Parsing

    /// An IPv6 address: its 128 bits (`high`: groups 0-3, `low`: groups 4-7)
    /// and how many groups its text had.
    struct IPv6 {
        var high: UInt64
        var low: UInt64
        var groups: Int

        /// Group `index` (0-7).
        @inline(__always)
        func word(_ index: Int) -> Int {
            Int(truncatingIfNeeded: (index < 4 ? high >> UInt64(48 - 16 * index) : low >> UInt64(112 - 16 * index)) & 0xFFFF)
        }

        /// Whether it is an IPv4-mapped address (`::ffff:a.b.c.d`); its IPv4 is then the low 32 bits.
        var isIPv4Mapped: Bool { high == 0 && low >> 32 == 0xFFFF }
    }

    /// Parses an IPv6 text form (a trailing dotted IPv4 counts as two groups); nil if it is not one.
    static func parseIPv6(_ text: Span<UInt8>) -> IPv6? {
        // The groups before `::` fill `words` from the front, those after it
        // from index 8 on; nothing is allocated.
        var words = InlineArray<16, UInt16>(repeating: 0)
        do {
            var headCount = 0, tailCount = 0
            func add(_ word: UInt16, tail: Bool) -> Bool {
                guard headCount + tailCount < 8 else { return false }
                if tail { words[8 + tailCount] = word; tailCount += 1 } else { words[headCount] = word; headCount += 1 }
                return true
            }
            var sawGap = false
            var index = 0
            let count = text.count
            guard count >= 2 else { return nil }
            if text[0] == UInt8(ascii: ":") {
                guard text[1] == UInt8(ascii: ":") else { return nil }
                sawGap = true
                index = 2
            }
            while index < count {
                // A group, or a dotted IPv4 as the last two groups.
                var end = index
                var value = 0
                while end < count && TextBytes.isHexDigit(text[end]) && end - index < 5 {
                    value = value << 4 | Int(TextBytes.hexValue(text[end]))
                    end += 1
                }
                if end < count && text[end] == UInt8(ascii: ".") {
                    guard let v4End = ipv4End(text, from: index), v4End == count,
                          let v4 = IPTruncation.ipv4Value(text.extracting(index..<v4End)),
                          add(UInt16(truncatingIfNeeded: v4 >> 16), tail: sawGap), add(UInt16(truncatingIfNeeded: v4), tail: sawGap)
                    else { return nil }
                    index = count
                    break
                }
                guard end > index && end - index <= 4, add(UInt16(value), tail: sawGap) else { return nil }
                index = end
                if index == count { break }
                guard text[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                if index < count && text[index] == UInt8(ascii: ":") {
                    guard !sawGap else { return nil }
                    sawGap = true
                    index += 1
                } else if index == count {
                    return nil  // a single trailing colon
                }
            }
            let groups = headCount + tailCount
            if sawGap { guard groups <= 7 else { return nil } } else { guard groups == 8 else { return nil } }
            var high: UInt64 = 0, low: UInt64 = 0
            for position in 0..<8 {
                let word: UInt16
                if position < headCount {
                    word = words[position]
                } else if position >= 8 - tailCount {
                    word = words[8 + position - (8 - tailCount)]
                } else {
                    word = 0
                }
                if position < 4 { high = high << 16 | UInt64(word) } else { low = low << 16 | UInt64(word) }
            }
            return IPv6(high: high, low: low, groups: groups)
        }
    }

    // MARK: - Formatting

    /// A dotted quad.
    static func appendIPv4(_ value: UInt32, to out: inout TextCursor) {
        // Written out, not a strided loop: one address per event on the reading thread.
        out.appendDecimal(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(ascii: "."))
        out.appendDecimal(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(ascii: "."))
        out.appendDecimal(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(ascii: "."))
        out.appendDecimal(UInt8(truncatingIfNeeded: value))
    }

    /// RFC 5952 text: lowercase, no leading zeros, the longest run (two or more)
    /// of zero groups as `::`; an IPv4-mapped address (`::ffff:a.b.c.d`) keeps its dotted tail.
    static func appendIPv6(_ address: IPv6, to out: inout TextCursor) {
        if address.isIPv4Mapped {
            for byte in "::ffff:".utf8 { out.append(byte) }
            appendIPv4(UInt32(truncatingIfNeeded: address.low), to: &out)
            return
        }
        var bestStart = -1, bestLength = 0, runStart = -1
        for index in 0...8 {
            if index < 8 && address.word(index) == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength { bestStart = runStart; bestLength = index - runStart }
                runStart = -1
            }
        }
        if bestLength < 2 { bestStart = -1 }
        var index = 0
        while index < 8 {
            if index == bestStart {
                out.append(UInt8(ascii: ":"))
                out.append(UInt8(ascii: ":"))
                index += bestLength
                continue
            }
            if index > 0 && index != bestStart + bestLength { out.append(UInt8(ascii: ":")) }
            let word = address.word(index)
            var started = false
            for shift in stride(from: 12, through: 0, by: -4) {
                let nibble = (word >> shift) & 0xF
                if nibble != 0 || started || shift == 0 {
                    out.append(nibble < 10 ? UInt8(0x30 + nibble) : UInt8(0x57 + nibble))
                    started = true
                }
            }
            index += 1
        }
    }
}

/// A short text (an address) written in place: no array, no allocation.
struct TextCursor {
    private var bytes = InlineArray<48, UInt8>(repeating: 0)
    /// The bytes written.
    private(set) var count = 0

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        bytes[count] = byte
        count += 1
    }

    /// 0-255 in decimal, without leading zeros.
    @inline(__always)
    mutating func appendDecimal(_ value: UInt8) {
        if value >= 100 { append(0x30 + value / 100) }
        if value >= 10 { append(0x30 + value / 10 % 10) }
        append(0x30 + value % 10)
    }

    /// Appends the text written to `out`.
    func append(to out: inout [UInt8]) {
        out.append(span: bytes.span.extracting(0..<count))
    }
}
