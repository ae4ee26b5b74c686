/// What surrounds a digit run that may be a phone number: the name of the
/// field it sits in, and the words just before it.
///
/// A run such as `612345678` or `1234-5678` is as likely an id, a count or a
/// code as a phone number; the phone detector takes it only with context
/// that says phone (`tel`, `mobile`, a field named `phone`), and leaves
/// numbers that context says are something else (`order`, `isbn`, a field
/// named `order_id`) alone.
enum PhoneContext {
    enum Hint: Equatable { case none, phone, notPhone }

    /// What a field's name says: `phone`, `mobile_number`, `faxNo`, `tel` say
    /// phone; `id`, `order_ref`, `sku`, `version`, `count`, `ts` say otherwise.
    /// Read from the key's raw bytes, ASCII case-insensitively, in words split
    /// at `_`, `-`, `.`, spaces and lower-to-upper case changes.
    static func hint(forKey key: UnsafeBufferPointer<UInt8>) -> Hint {
        guard !key.isEmpty else { return .none }
        var lower: [UInt8] = []
        lower.reserveCapacity(key.count)
        var words: [Range<Int>] = []
        var wordStart = 0
        for (index, byte) in key.enumerated() {
            let isUpper = byte &- UInt8(ascii: "A") < 26
            let boundary = !TextBytes.isASCIIAlnum(byte) && byte < 0x80
            if boundary || (isUpper && index > 0 && key[index - 1] &- UInt8(ascii: "a") < 26) {
                if lower.count > wordStart { words.append(wordStart..<lower.count) }
                wordStart = lower.count
            }
            if boundary {
                lower.append(UInt8(ascii: " "))
                wordStart = lower.count
            } else {
                lower.append(isUpper ? byte | 0x20 : byte)
            }
        }
        if lower.count > wordStart { words.append(wordStart..<lower.count) }
        for stem in phoneStems where contains(lower, stem) { return .phone }
        for range in words {
            let word = lower[range]
            if phoneWords.contains(where: { $0.elementsEqual(word) }) { return .phone }
        }
        for range in words {
            let word = lower[range]
            if otherWords.contains(where: { $0.elementsEqual(word) }) { return .notPhone }
        }
        return .none
    }

    /// Whether the words before `start` in `text` (up to 32 bytes back) say
    /// phone (`call`, `tel:`, `Mobil`, `телефон`, `電話`), and whether they say
    /// something else (`order`, `invoice`, `isbn`, `#`). The later word wins.
    static func wordsBefore(_ text: UnsafeBufferPointer<UInt8>, _ start: Int) -> Hint {
        let from = Swift.max(0, start - 32)
        guard start > from else { return .none }
        var lower = [UInt8](repeating: 0, count: start - from)
        for index in from..<start {
            let byte = text[index]
            lower[index - from] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }
        var best = Hint.none
        var bestEnd = -1
        func look(_ words: [[UInt8]], _ hint: Hint, asWord: Bool) {
            for word in words {
                var position = lower.count - word.count
                while position >= 0 {
                    if lower[position..<(position + word.count)].elementsEqual(word)
                        && (!asWord || position == 0 || !TextBytes.isASCIIAlnum(lower[position - 1])) {
                        if position + word.count > bestEnd {
                            bestEnd = position + word.count
                            best = hint
                        }
                        break
                    }
                    position -= 1
                }
            }
        }
        look(phoneKeywords, .phone, asWord: true)
        look(otherKeywords, .notPhone, asWord: true)
        return best
    }

    private static func contains(_ text: [UInt8], _ word: [UInt8]) -> Bool {
        guard text.count >= word.count else { return false }
        for position in 0...(text.count - word.count) where text[position..<(position + word.count)].elementsEqual(word) {
            return true
        }
        return false
    }

    /// Parts of a field name that say phone wherever they appear (`homePhone`, `telefono`).
    private static let phoneStems: [[UInt8]] = ["phone", "mobile", "msisdn", "whatsapp", "telef", "teleph"].map { Array($0.utf8) }
    /// Whole words of a field name that say phone.
    private static let phoneWords: [[UInt8]] = ["tel", "cell", "cellular", "fax", "sms", "mob", "handy", "gsm", "celular",
                                                "cellulare", "portable", "móvil", "puhelin", "mobil"].map { Array($0.utf8) }
    /// Whole words of a field name that say the value is something else.
    private static let otherWords: [[UInt8]] = [
        "id", "ids", "uuid", "guid", "count", "counter", "sku", "isbn", "ean", "upc", "gtin", "order", "invoice",
        "tracking", "version", "build", "ver", "code", "zip", "postal", "postcode", "price", "amount", "total", "qty",
        "quantity", "ts", "time", "timestamp", "duration", "ms", "seq", "sequence", "serial", "barcode", "ref",
        "reference", "sum", "size", "bytes", "score", "revenue", "cents",
    ].map { Array($0.utf8) }

    /// Words before a number that say phone, in the languages Sluice's users write most.
    private static let phoneKeywords: [[UInt8]] = [
        "tel", "tél", "phone", "mobile", "mobil", "móvil", "cell", "call", "fax", "sms", "whatsapp", "contact", "ring",
        "dial", "handy", "telefon", "telefono", "teléfono", "telefone", "telefoon", "celular", "cellulare", "portable",
        "numer", "puhelin", "gsm", "my number", "number is", "телефон", "тел", "моб", "звоните", "電話", "携帯",
        "手机", "电话", "致电", "전화", "휴대폰", "연락처", "cep",
    ].map { Array($0.utf8) }

    /// Words before a number that say it is something else.
    private static let otherKeywords: [[UInt8]] = [
        "order", "invoice", "isbn", "ean", "sku", "tracking", "serial", "ref", "id", "version", "build", "#", "no.",
        "qty", "total", "price", "amount", "account", "iban", "bic", "zip", "postcode", "code",
    ].map { Array($0.utf8) }
}
