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
    /// phone (`call`, `tel:`, `Mobil`, `телефон`, `電話`, `טלפון`), or say the
    /// number is an identifier (`order`, `invoice`, `P/N`, `Art.`, `ISBN`,
    /// `型番`, `#`). The word that ends last wins; at the same end, phone.
    static func wordsBefore(_ text: Span<UInt8>, _ start: Int) -> Hint {
        numberWords.before(text, start)
    }

    /// Whether the words before `start` say payment card (`card`, `Karte`,
    /// `カード`: `.phone` here stands for card), or an order, invoice or
    /// shipment (`.notPhone`), whose 16-digit ids can pass Luhn; the later wins.
    static func cardWordsBefore(_ text: Span<UInt8>, _ start: Int) -> Hint {
        cardContextWords.before(text, start)
    }

    /// Whether a field's name says the value is an order's, an invoice's or a
    /// shipment's id (`order_id`, `tracking_number`, `invoiceNo`), which a
    /// word that says card in it (`card_order`) undoes.
    static func namesOrderOrShipment(_ key: Span<UInt8>) -> Bool {
        var order = false
        var card = false
        forEachWord(key) { word in
            if cardWords.contains(where: { TextBytes.equalsFolded(word, $0) }) { card = true }
            if orderFieldWords.contains(where: { TextBytes.equalsFolded(word, $0) }) { order = true }
            return !card
        }
        return order && !card
    }

    /// Keywords looked for before a number, bucketed by their last byte (case
    /// folded): reading back from the number, the first keyword that ends at
    /// a position is the one that ends last.
    struct Keywords: Sendable {
        private let words: [[UInt8]]
        private let hints: [Hint]
        private let buckets: [[Int]]

        init(_ lists: [([String], Hint)]) {
            var words: [[UInt8]] = []
            var hints: [Hint] = []
            var buckets = [[Int]](repeating: [], count: 256)
            for (list, hint) in lists {
                // A word in a script with capitals is also looked for capitalized (`Заказ`, `Część`).
                let capitalized = list.compactMap { word -> String? in
                    guard let first = word.unicodeScalars.first, !first.isASCII else { return nil }
                    let capital = word.prefix(1).uppercased() + word.dropFirst()
                    return capital == word ? nil : capital
                }
                for word in list + capitalized {
                    let bytes = Array(word.utf8).map(TextBytes.fold)
                    buckets[Int(bytes[bytes.count - 1])].append(words.count)
                    words.append(bytes)
                    hints.append(hint)
                }
            }
            self.words = words
            self.hints = hints
            self.buckets = buckets
        }

        /// The hint of the keyword that ends last within 32 bytes before
        /// `start`, starting a word (not after an ASCII letter or digit).
        func before(_ text: Span<UInt8>, _ start: Int) -> Hint {
            let from = Swift.max(0, start - 32)
            var end = start
            while end > from {
                for index in buckets[Int(TextBytes.fold(text[end - 1]))] {
                    let word = words[index]
                    let position = end - word.count
                    guard position >= from else { continue }
                    var offset = word.count - 2
                    while offset >= 0 && TextBytes.fold(text[position + offset]) == word[offset] { offset -= 1 }
                    if offset < 0 && (position == 0 || !TextBytes.isASCIIAlnum(text[position - 1])) { return hints[index] }
                }
                end -= 1
            }
            return .none
        }
    }

    private static let numberWords = Keywords([(phoneKeywords, .phone), (identifierKeywords, .notPhone)])
    private static let cardContextWords = Keywords([(cardKeywords, .phone), (orderKeywords, .notPhone)])

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
        "expiration", "created", "updated", "modified", "since", "until", "model", "part", "pn", "mpn", "art", "article",
        "artikel", "item", "hs", "hscode", "tariff", "parcel", "shipment", "awb", "waybill", "batch", "lot", "asin",
        "product", "catalog", "ticket", "receipt", "booking",
    ].map { Array($0.utf8) }

    /// Words before a number that say phone, in the languages of the stage
    /// (English, German, French, Spanish, Italian, Portuguese, Dutch, Polish,
    /// Czech, Swedish, Finnish, Turkish, Russian, Japanese, Chinese, Korean,
    /// Hebrew, Arabic). Words that say contact in general (`contact`, `연락처`)
    /// are not among them: an address or a handle is contact too.
    private static let phoneKeywords: [String] = [
        "tel", "tél", "phone", "mobile", "mobil", "móvil", "cell", "call", "fax", "sms", "whatsapp", "ring", "dial", "handy",
        "telefon", "telefono", "teléfono", "telefone", "telefoon", "mobiel", "bel ", "bel me", "celular", "cellulare",
        "portable", "puhelin", "soita", "gsm", "my number", "number is", "anrufen", "ruf ", "rufen sie", "rückruf",
        "appelez", "appeler", "llama", "llámame", "llamar", "chiama", "chiamare", "ligue", "ligar", "zadzwoń", "komórk",
        "volejte", "zavolejte", "mobilní", "arayın", "arayabilir", "cep", "телефон", "тел", "моб", "звоните",
        "позвоните", "сотов", "電話", "携帯", "手机", "电话", "致电", "拨打", "전화", "휴대폰", "핸드폰", "טלפון", "טל'", "נייד",
        "פלאפון", "התקשר", "חייג", "هاتف", "جوال", "اتصل",
    ]

    /// Words before a number that say it is an identifier: an order, an
    /// invoice, a model or part, an article, a tariff code, a stock unit, a
    /// shipment, a version or build, a book, in the same languages.
    private static let identifierKeywords: [String] = [
        "order", "invoice", "isbn", "ean", "sku", "tracking", "serial", "ref", "id", "version", "build", "#", "no.",
        "qty", "total", "price", "amount", "account", "iban", "bic", "zip", "postcode", "code", "model", "part ", "part#",
        "part-", "p/n", "pn:", "pn ", "mpn", "art.", "art ", "art-", "article", "item", "upc", "gtin", "asin", "batch",
        "lot ", "parcel", "shipment", "package", "waybill", "awb", "consignment", "receipt", "ticket", "booking",
        "catalog", "product", "release", "rev ", "rev.", "revision", "firmware", "patch",
        // German, French, Spanish, Italian, Portuguese, Dutch
        "modell", "teil", "artikel", "bestell", "auftrag", "rechnung", "sendung", "seriennummer", "kundennummer",
        "zolltarif", "modèle", "pièce", "réf", "commande", "facture", "suivi", "colis", "série", "modelo", "pieza",
        "artículo", "pedido", "factura", "seguimiento", "envío", "versión", "modello", "articolo", "ordine", "fattura",
        "spedizione", "codice", "versione", "peça", "artigo", "encomenda", "fatura", "rastreio", "rastreamento",
        "versão", "onderdeel", "bestelling", "factuur", "zending", "versie",
        // Polish, Czech, Swedish, Turkish, Russian
        "część", "artykuł", "zamówieni", "faktur", "przesyłk", "wersj", "díl", "artikl", "objednávk", "zásilk", "verze",
        "beställning", "försändelse", "spårning", "parça", "ürün", "sipariş", "kargo", "takip", "sürüm", "модел",
        "артикул", "детал", "заказ", "счёт", "счет", "накладн", "трек", "отслежива", "верси", "сборк", "серийн",
        // Japanese, Chinese, Korean, Hebrew
        "型番", "品番", "注文", "請求書", "追跡", "伝票", "製品", "部品", "バージョン", "型号", "货号", "订单", "发票", "快递",
        "运单", "追踪", "版本", "零件", "序列号", "모델", "품번", "주문", "송장", "운송장", "추적", "버전", "부품", "מק\"ט",
        "דגם", "הזמנה", "חשבונית", "משלוח", "גרסה",
    ]

    /// Words before a number that say payment card.
    private static let cardKeywords: [String] = [
        "card", "karte", "carte", "tarjeta", "carta", "cartão", "kaart", "karta", "kart", "карт", "visa", "mastercard",
        "amex", "カード", "卡", "카드", "כרטיס",
    ]

    /// Words before a number that say an order's, an invoice's or a shipment's id.
    private static let orderKeywords: [String] = [
        "order", "invoice", "tracking", "shipment", "parcel", "waybill", "consignment", "receipt", "bestell", "rechnung",
        "sendung", "commande", "facture", "suivi", "colis", "pedido", "factura", "seguimiento", "ordine", "fattura",
        "spedizione", "encomenda", "fatura", "rastreio", "bestelling", "factuur", "zending", "zamówieni", "faktur",
        "przesyłk", "objednávk", "zásilk", "beställning", "försändelse", "sipariş", "kargo", "takip", "заказ", "накладн",
        "трек", "注文", "追跡", "订单", "发票", "快递", "运单", "주문", "송장", "הזמנה", "חשבונית", "משלוח",
    ]

    /// Whole words of a field name that say an order's, an invoice's or a shipment's id.
    private static let orderFieldWords: [[UInt8]] = [
        "order", "orders", "invoice", "tracking", "shipment", "parcel", "waybill", "awb", "consignment", "receipt",
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
