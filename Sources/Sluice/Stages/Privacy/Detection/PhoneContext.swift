import SluiceJSON

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
    /// phone; `id`, `order_reference`, `sku`, `version`, `count`, `ts`,
    /// `expires_at` say otherwise.
    /// Read from the key's raw bytes, ASCII case-insensitively, in words split
    /// at `_`, `-`, `.`, spaces and lower-to-upper case changes.
    static func hint(forKey key: Span<UInt8>) -> Hint {
        guard !key.isEmpty else { return .none }
        for stem in phoneStems where TextBytes.containsFolded(key, stem) { return .phone }
        var other = false
        var phone = false
        forEachWord(key) { word in
            if phoneWords.contains(where: { TextBytes.equalsFolded(word, $0) }) {
                phone = true
                return false
            }
            if !other && otherWords.contains(where: { TextBytes.equalsFolded(word, $0) }) { other = true }
            return true
        }
        return phone ? .phone : other ? .notPhone : .none
    }

    /// Calls `body` with each word of a field's name, without copying, until it returns false: a word
    /// ends before a non-letter-or-digit ASCII byte or an upper-case letter after a lower-case one.
    private static func forEachWord(_ key: Span<UInt8>, _ body: (Span<UInt8>) -> Bool) {
        var wordStart = 0
        var index = 0
        while index <= key.count {
            let ends: Bool
            if index == key.count {
                ends = true
            } else {
                let byte = key[index]
                ends = (!TextBytes.isASCIIAlnum(byte) && byte < 0x80)
                    || (byte &- UInt8(ascii: "A") < 26 && index > 0 && key[index - 1] &- UInt8(ascii: "a") < 26)
            }
            if ends {
                if index > wordStart && !body(key.extracting(wordStart..<index)) { return }
                wordStart = index < key.count && !TextBytes.isASCIIAlnum(key[index]) && key[index] < 0x80 ? index + 1 : index
            }
            index += 1
        }
    }

    /// Whether a word of a field's name says payment card (`card_number`, `cardId`, `cc_code`, `pan`,
    /// `Kreditkarte`, `tarjeta`), which a word that says something else (`id`) in it does not undo;
    /// `discard_count` and `cardinality` have no such word.
    static func namesCard(_ key: Span<UInt8>) -> Bool {
        var card = false
        forEachWord(key) { word in
            card = cardWords.contains { TextBytes.equalsFolded(word, $0) }
            return !card
        }
        return card
    }

    /// Whether the words before `start` in `text` (up to 32 bytes back) say
    /// phone (`call`, `tel:`, `Mobil`, `телефон`, `電話`), and whether they say
    /// something else (`order`, `invoice`, `isbn`, `#`). The later word wins.
    static func wordsBefore(_ text: Span<UInt8>, _ start: Int) -> Hint {
        let from = Swift.max(0, start - 32)
        guard start > from else { return .none }
        var best = Hint.none
        var bestEnd = -1
        // The keyword that ends last wins; each list is searched from the right, case folded in place.
        func look(_ words: [[UInt8]], _ hint: Hint) {
            for word in words where start - from >= word.count {
                var position = start - word.count
                while position >= from && position + word.count > bestEnd {
                    if TextBytes.fold(text[position]) == word[0] {
                        var offset = 1
                        while offset < word.count && TextBytes.fold(text[position + offset]) == word[offset] { offset += 1 }
                        if offset == word.count && (position == 0 || !TextBytes.isASCIIAlnum(text[position - 1])) {
                            bestEnd = position + word.count
                            best = hint
                            break
                        }
                    }
                    position -= 1
                }
            }
        }
        look(phoneKeywords, .phone)
        look(otherKeywords, .notPhone)
        return best
    }

    /// Parts of a field name that say phone wherever they appear (`homePhone`, `telefono`).
    private static let phoneStems: [[UInt8]] = ["phone", "mobile", "msisdn", "whatsapp", "telef", "teleph"].map { Array($0.utf8) }
    /// Whole words of a field name that say payment card.
    private static let cardWords: [[UInt8]] = [
        "card", "cards", "cc", "pan", "ccnum", "creditcard", "cardnumber", "cardno", "karte", "kreditkarte", "carte",
        "tarjeta", "cartao", "cartão",
    ].map { Array($0.utf8) }
    /// Whole words of a field name that say phone.
    private static let phoneWords: [[UInt8]] = ["tel", "cell", "cellular", "fax", "sms", "mob", "handy", "gsm", "celular",
                                                "cellulare", "portable", "móvil", "puhelin", "mobil"].map { Array($0.utf8) }
    /// Whole words of a field name that say the value is something else.
    private static let otherWords: [[UInt8]] = [
        "id", "ids", "uuid", "guid", "count", "counter", "sku", "isbn", "ean", "upc", "gtin", "order", "invoice",
        "tracking", "version", "build", "ver", "code", "zip", "postal", "postcode", "price", "amount", "total", "qty",
        "quantity", "ts", "time", "timestamp", "duration", "ms", "seq", "sequence", "serial", "barcode",
        "reference", "sum", "size", "bytes", "score", "revenue", "cents", "at", "epoch", "expires", "expiry",
        "expiration", "created", "updated", "modified", "since", "until",
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

/// The hints of the field names asked about lately: events repeat their field
/// names, so a number's field (`session_id`, `duration_ms`) is read once, not
/// once per event.
struct PhoneHintCache {
    private var keys: [[UInt8]] = []
    private var hints: [PhoneContext.Hint] = []
    private var next = 0
    private static let capacity = 32

    mutating func hint(forKey key: Span<UInt8>) -> PhoneContext.Hint {
        for index in keys.indices where keys[index].count == key.count {
            if ByteSpans.equal(key, keys[index]) { return hints[index] }
        }
        let hint = PhoneContext.hint(forKey: key)
        if keys.count < Self.capacity {
            keys.append(Array(copying: key))
            hints.append(hint)
        } else {
            keys[next] = Array(copying: key)
            hints[next] = hint
            next = (next + 1) % Self.capacity
        }
        return hint
    }
}
