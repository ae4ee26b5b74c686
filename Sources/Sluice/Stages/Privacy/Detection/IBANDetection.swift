/// Finds IBANs (ISO 13616): a country code, two check digits and the country's
/// fixed number of letters and digits, written solid or in groups of four
/// (`DE89 3704 0044 0532 0130 00`), with a valid mod-97 checksum (ISO 7064).
///
/// The country's length comes from the SWIFT IBAN registry (`lengths`: its 89
/// countries, release 100, and the territories it lists under France, the
/// United Kingdom and Finland with their length), so an IBAN followed by more
/// text ends where it must. A country outside the registry, or an IBAN of
/// another length, is taken as the whole token when its checksum holds
/// (`wholeTokenEnd`). Lowercase is accepted. The check digits may be the only
/// digits: BBANs of letters and digits (`4!a13!c` in Latvia, Palestine,
/// Kuwait, Bahrain, Qatar; `2!c18!c` in Moldova) can be all letters.
enum IBANDetection {
    static let lengths: [UInt16: Int] = {
        let registry = """
            AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 DO28 \
            EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 \
            IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 \
            NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 \
            SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30 \
            AX18 BL27 GF27 GP27 MF27 MQ27 NC27 PF27 PM27 RE27 TF27 WF27 YT27 GG22 IM22 JE22
            """
        var table: [UInt16: Int] = [:]
        for entry in registry.split(separator: " ") {
            let bytes = Array(entry.utf8)
            table[UInt16(bytes[0]) << 8 | UInt16(bytes[1])] = Int(String(decoding: bytes[2...], as: UTF8.self))!
        }
        return table
    }()

    static func scan(_ text: Span<UInt8>, _ found: (Int, Int) -> Void) {
        let count = text.count
        var index = 0
        while index + 4 <= count {
            guard TextBytes.isASCIILetter(text[index]), TextBytes.isASCIILetter(text[index + 1]),
                  TextBytes.isDigit(text[index + 2]), TextBytes.isDigit(text[index + 3]),
                  index == 0 || !TextBytes.isWord(text[index - 1])
            else {
                index += 1
                continue
            }
            let length = lengths[UInt16(text[index] & 0xDF) << 8 | UInt16(text[index + 1] & 0xDF)]
            if let end = length.flatMap({ end(text, from: index, length: $0) }) ?? wholeTokenEnd(text, from: index) {
                found(index, end)
                index = end
            } else {
                index += 2
            }
        }
    }

    /// The end of an IBAN whose length the registry does not give for its
    /// country (a country outside it, or a test generator's own format): the
    /// whole token, solid or printed in groups of four, 15-34 characters with a
    /// valid checksum, or nil.
    private static func wholeTokenEnd(_ text: Span<UInt8>, from start: Int) -> Int? {
        var position = start
        var characters = 0
        var group = 0
        while position < text.count {
            let byte = text[position]
            if TextBytes.isASCIIAlnum(byte) {
                characters += 1
                group += 1
                position += 1
            } else if byte == UInt8(ascii: " ") && group == 4 && position + 1 < text.count && TextBytes.isASCIIAlnum(text[position + 1]) {
                group = 0
                position += 1
            } else {
                break
            }
            if characters > 34 { return nil }
        }
        guard characters >= 15, position == text.count || !TextBytes.isWord(text[position]) else { return nil }
        return end(text, from: start, length: characters)
    }

    /// The end of a valid IBAN of `length` characters at `start` (single spaces between characters allowed), or nil.
    private static func end(_ text: Span<UInt8>, from start: Int, length: Int) -> Int? {
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        var position = start
        while characters.count < length && position < text.count {
            let byte = text[position]
            if TextBytes.isASCIIAlnum(byte) {
                characters.append(TextBytes.isASCIILetter(byte) ? byte & 0xDF : byte)
                position += 1
            } else if byte == UInt8(ascii: " ") && position + 1 < text.count && TextBytes.isASCIIAlnum(text[position + 1])
                        && !characters.isEmpty {
                position += 1
            } else {
                return nil
            }
        }
        guard characters.count == length, position == text.count || !TextBytes.isWord(text[position]) else { return nil }
        // Move the first four to the end, letters as 10...35, and take the remainder by 97.
        var remainder = 0
        for offset in 0..<length {
            let byte = characters[(offset + 4) % length]
            if TextBytes.isDigit(byte) {
                remainder = (remainder * 10 + Int(byte - 0x30)) % 97
            } else {
                remainder = (remainder * 100 + Int(byte - UInt8(ascii: "A")) + 10) % 97
            }
        }
        return remainder == 1 ? position : nil
    }
}
