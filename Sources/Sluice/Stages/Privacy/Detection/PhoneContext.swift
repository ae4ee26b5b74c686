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

    /// What a field's name says: `phone`, `mobile_number`, `faxNo`, `tel`,
    /// `Telefonnummer`, `teléfono`, `電話番号`, `טלפון` say phone; `id`,
    /// `order_reference`, `sku`, `version`, `count`, `ts`, `expires_at`,
    /// `Artikelnummer`, `注文番号` say otherwise (phone wins: `order_phone`).
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
        if phone { return .phone }
        if other { return .notPhone }
        for stem in otherStems where TextBytes.containsFolded(key, stem) { return .notPhone }
        return .none
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

    /// Whether a phone word starts just after `end` (up to 12 bytes on):
    /// `612 345 678 (móvil)`, `090-1234-5678（携帯）`, `010-1234-5678로 전화`.
    static func wordsAfter(_ text: Span<UInt8>, _ end: Int) -> Hint {
        numberWords.after(text, end)
    }

    /// What the words around a number say: those before it, or when they say nothing, those right after it.
    static func wordsAround(_ text: Span<UInt8>, _ start: Int, _ end: Int) -> Hint {
        let before = numberWords.before(text, start)
        return before == .none ? numberWords.after(text, end) : before
    }

    /// Whether the words before `start` (up to 32 bytes back) say the number
    /// is an id (an order's, an invoice's, a shipment's, an article's:
    /// `order`, `Bestellung`, `заказ`, `注文`, `Article:`) and none says
    /// payment card (`card`, `Karte`, `カード`).
    static func saysIdNotCard(_ text: Span<UInt8>, _ start: Int) -> Bool {
        idForCardWords.before(text, start) != .none && cardContextWords.before(text, start) == .none
    }

    /// Whether a field's name says the value is an order's, a customer's, a
    /// shipment's, an article's number (`order_id`, `tracking_number`,
    /// `customer_number`, `Bestellnummer`): an identifier word of its own, not
    /// only `id`, `count`, `code` or a time (`messageId` may hold anything);
    /// and no word of it says card (`card_id`, `card_order`).
    static func namesIdNotCard(_ key: Span<UInt8>) -> Bool {
        !namesCard(key) && namesSpecificIdentifier(key)
    }

    /// Whether a field's name says what its value identifies (`order_id`,
    /// `po_number`, `Rechnungsnummer`), beyond `id`, `count` or a time
    /// (`anonymousId`, `messageId` may hold anything).
    static func namesSpecificIdentifier(_ key: Span<UInt8>) -> Bool {
        guard !key.isEmpty, hint(forKey: key) == .notPhone else { return false }
        for stem in otherStems where TextBytes.containsFolded(key, stem) { return true }
        var specific = false
        forEachWord(key) { word in
            specific = otherWords.contains { TextBytes.equalsFolded(word, $0) } && !genericWords.contains { TextBytes.equalsFolded(word, $0) }
            return !specific
        }
        return specific
    }

    /// Field words that say a value is no phone without saying what it identifies.
    private static let genericWords: [[UInt8]] = [
        "id", "ids", "uuid", "guid", "count", "counter", "ts", "time", "timestamp", "duration", "ms", "seq", "sequence",
        "size", "bytes", "score", "sum", "at", "epoch", "expires", "expiry", "expiration", "created", "updated",
        "modified", "since", "until", "price", "amount", "total", "qty", "quantity", "revenue", "cents", "code", "zip",
        "postal", "postcode", "no", "nr", "reference",
    ].map { Array($0.utf8) }

    /// Keywords looked for before a number, bucketed by their last byte (case
    /// folded): reading back from the number, the first keyword that ends at
    /// a position is the one that ends last.
    struct Keywords: Sendable {
        private let words: [[UInt8]]
        private let hints: [Hint]
        private let buckets: [[Int]]
        /// The same by their first byte, for reading on from a number's end.
        private let firstBuckets: [[Int]]

        init(_ lists: [([String], Hint)]) {
            var words: [[UInt8]] = []
            var hints: [Hint] = []
            var buckets = [[Int]](repeating: [], count: 256)
            var firstBuckets = [[Int]](repeating: [], count: 256)
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
                    firstBuckets[Int(bytes[0])].append(words.count)
                    words.append(bytes)
                    hints.append(hint)
                }
            }
            self.words = words
            self.hints = hints
            self.buckets = buckets
            self.firstBuckets = firstBuckets
        }

        /// `.phone` when a phone keyword starts within 12 bytes after `end`, at
        /// a word's start (not after an ASCII letter or digit): what follows a
        /// number in brackets (`(mobile)`, `（携帯）`) says phone; an identifier
        /// word after it is as likely the next sentence's (`… para el seguimiento`).
        func after(_ text: Span<UInt8>, _ end: Int) -> Hint {
            let to = Swift.min(text.count, end + 12)
            var start = end
            while start < to {
                if start == 0 || !TextBytes.isASCIIAlnum(text[start - 1]) {
                    for index in firstBuckets[Int(TextBytes.fold(text[start]))] {
                        let word = words[index]
                        guard start + word.count <= text.count else { continue }
                        var offset = 1
                        while offset < word.count && TextBytes.fold(text[start + offset]) == word[offset] { offset += 1 }
                        if offset == word.count && hints[index] == .phone { return .phone }
                    }
                }
                start += 1
            }
            return .none
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
    private static let cardContextWords = Keywords([(cardKeywords, .phone)])
    private static let idForCardWords = Keywords([(identifierKeywords.filter { !notCardIdWords.contains($0) }, .notPhone)])

    /// Parts of a field name that say phone wherever they appear (`homePhone`, `telefono`, `numer_komórki`).
    private static let phoneStems: [[UInt8]] = [
        "phone", "mobile", "msisdn", "whatsapp", "telef", "teleph", "teléf", "télép", "puhelin", "komórk", "celul",
        "телеф", "Телеф", "мобил", "Мобил", "電話", "携帯", "手机", "电话", "전화", "휴대", "핸드폰", "טלפון", "נייד",
        "هاتف", "جوال", "mobil", "móvil", "movil", "fax", "faks", "факс", "Факс", "ファックス", "ファクス", "传真", "팩스", "פקס",
        "فاكس", "shouji", "dianhua", "puhelin", "whatsapp", "واتساب", "וואטסאפ",
    ].map { Array($0.utf8) }
    /// Parts of a field name that say an identifier wherever they appear
    /// (`Artikelnummer`, `numero_ordine`, `注文番号`, `customer_number`): the
    /// identifier words of 4 bytes or more, and words that say customer, which
    /// in a field's name make it a customer number.
    private static let otherStems: [[UInt8]] = {
        let customer = [
            "customer", "client", "kunde", "kund", "cliente", "klant", "klient", "zákazník", "zakaznik", "müşteri",
            "musteri", "клиент", "顧客", "お客様", "客户", "고객", "회원", "לקוח", "العميل", "zamowien", "objednavk", "siparis",
            "referenc", "versi", "versã", "sürüm", "surum", "stok", "hsコード",
        ]
        // `item` only as a whole word: a list named `items` holds anything.
        let words = identifierKeywords.filter { $0.utf8.count >= 4 && !notCardIdWords.contains($0) && !$0.contains(" ") && $0 != "item" }
        return (words + customer).map { Array($0.utf8).map(TextBytes.fold) }
    }()

    /// Whole words of a field name that say payment card.
    private static let cardWords: [[UInt8]] = [
        "card", "cards", "cc", "pan", "ccnum", "creditcard", "cardnumber", "cardno", "karte", "kreditkarte", "carte",
        "tarjeta", "cartao", "cartão",
    ].map { Array($0.utf8) }
    /// Whole words of a field name that say phone.
    private static let phoneWords: [[UInt8]] = ["tel", "cell", "cellular", "fax", "sms", "mob", "handy", "gsm", "celular",
                                                "cellulare", "portable", "móvil", "puhelin", "mobil", "cep", "tlf", "telf",
                                                "mobiel", "phones", "тел", "Тел", "טל"].map { Array($0.utf8) }
    /// Whole words of a field name that say the value is something else.
    private static let otherWords: [[UInt8]] = [
        "id", "ids", "uuid", "guid", "count", "counter", "sku", "isbn", "ean", "upc", "gtin", "order", "invoice",
        "tracking", "version", "build", "ver", "code", "zip", "postal", "postcode", "price", "amount", "total", "qty",
        "quantity", "ts", "time", "timestamp", "duration", "ms", "seq", "sequence", "serial", "barcode",
        "reference", "sum", "size", "bytes", "score", "revenue", "cents", "at", "epoch", "expires", "expiry",
        "expiration", "created", "updated", "modified", "since", "until", "model", "part", "pn", "mpn", "art", "article",
        "artikel", "item", "hs", "hscode", "tariff", "parcel", "shipment", "awb", "waybill", "batch", "lot", "asin",
        "product", "catalog", "ticket", "receipt", "booking", "po", "ncm", "parts", "parcels", "orders",
        "versions", "skus", "models", "products", "consignment", "dil", "dilu", "nr", "no",
    ].map { Array($0.utf8) }

    /// Words before a number that say phone, in the languages of the stage
    /// (English, German, French, Spanish, Italian, Portuguese, Dutch, Polish,
    /// Czech, Swedish, Finnish, Turkish, Russian, Japanese, Chinese, Korean,
    /// Hebrew, Arabic). Words that say contact in general (`contact`, `연락처`)
    /// are not among them: an address or a handle is contact too.
    private static let phoneKeywords: [String] = [
        "tel", "tél", "phone", "mobile", "mobil", "móvil", "movil", "mob", "cell", "call", "fax", "sms", "whatsapp", "ring",
        "dial", "handy", "rufnummer", "faks", "факс", "ファックス", "ファクス", "传真", "팩스", "פקס", "فاكس",
        "telefon", "telefono", "teléfono", "telefone", "telefoon", "mobiel", "bel ", "bel me", "celular", "cellulare",
        "portable", "puhelin", "soita", "gsm", "my number", "number is", "anrufen", "ruf ", "rufen sie", "rückruf",
        "appelez", "appeler", "llama", "llámame", "llamar", "chiama", "chiamare", "ligue", "ligar", "zadzwoń", "komórk",
        "volejte", "zavolejte", "mobilní", "arayın", "arayabilir", "cep", "телефон", "тел", "моб", "звоните",
        "позвоните", "сотов", "電話", "携帯", "手机", "电话", "致电", "拨打", "전화", "휴대폰", "핸드폰", "טלפון", "טל'", "נייד",
        "פלאפון", "התקשר", "חייג", "טל׳", "וואטסאפ", "هاتف", "جوال", "اتصل", "موبايل", "تلفون", "واتساب",
    ]

    /// Words before a number that say it is an identifier: an order, an
    /// invoice, a model, part, article or product, a tariff code, a stock unit,
    /// a shipment, a version or build, a customer's or a contract's number, a
    /// reference, in the same languages. (A word alone that says customer is
    /// not among them: "the customer wrote" is how a message starts.)
    private static let identifierKeywords: [String] = [
        // English
        "order", "invoice", "isbn", "ean", "sku", "tracking", "serial", "ref", "id", "version", "build", "#", "no.",
        "qty", "total", "price", "amount", "account", "iban", "bic", "zip", "postcode", "code", "model", "part ", "part#",
        "part-", "part:", "parts", "p/n", "pn:", "pn ", "mpn", "art.", "art ", "art-", "article", "item", "upc", "gtin",
        "asin", "batch", "lot ", "parcel", "shipment", "package", "waybill", "awb", "consignment", "receipt", "ticket",
        "booking", "catalog", "product", "release", "rev ", "rev.", "revision", "firmware", "patch", "po ", "po:", "po#",
        "p.o.", "purchase", "customer no", "customer number", "customer id", "member no", "contract", "case no", "hts",
        "tariff", "stock", "reference",
        // German, French, Spanish, Italian, Portuguese, Dutch
        "modell", "teilenummer", "teile-nr", "teil-nr", "artikel", "art.-nr", "bestell", "auftrag", "rechnung",
        "sendung", "seriennummer", "kundennummer", "kunden-nr", "vertrag", "vorgang", "zolltarif", "warentarif",
        "produkt", "modèle", "pièce", "réf", "référence", "commande", "facture", "suivi", "colis", "série", "produit",
        "numéro client", "n° client", "contrat", "dossier", "nomenclature", "modelo", "pieza", "artículo", "pedido",
        "factura", "seguimiento", "envío", "versión", "referencia", "producto", "número de cliente", "contrato",
        "arancel", "modello", "articolo", "ordine", "fattura", "spedizione", "codice", "versione", "riferimento",
        "prodotto", "contratto", "pratica", "tariffa", "peça", "artigo", "encomenda", "fatura", "rastreio",
        "rastreamento", "versão", "referência", "produto", "objeto", "protocolo", "onderdeel", "bestel", "factuur",
        "zending", "versie", "referentie", "klantnummer", "contract", "tarief",
        // Polish, Czech, Swedish, Turkish, Russian
        "część", "artykuł", "zamówieni", "faktur", "przesyłk", "wersj", "referencj", "numer klienta", "umow",
        "zgłoszeni", "taryf", "díl", "artikl", "objednávk", "zásilk", "verze", "číslo zákazníka", "smlouv", "sazebník",
        "beställning", "försändelse", "spårning", "kundnummer", "avtal", "ärende", "tulltaxa", "parça", "ürün",
        "sipariş", "kargo", "takip", "sürüm", "müşteri no", "sözleşme", "gtip", "GTİP", "stok", "модел", "артикул",
        "детал", "заказ", "счёт", "счет", "накладн", "трек", "отслежива", "верси", "сборк", "серийн", "товар",
        "номер клиента", "договор", "тн вэд",
        // Japanese, Chinese, Korean
        "型番", "品番", "注文", "請求書", "追跡", "伝票", "製品", "部品", "商品", "バージョン", "モデル", "コード", "お客様番号",
        "顧客番号", "契約", "関税", "型号", "货号", "料号", "订单", "发票", "快递", "运单", "追踪", "版本", "零件", "序列号", "产品",
        "编号", "客户编号", "合同", "海关", "모델", "품번", "주문", "송장", "운송장", "추적", "버전", "부품", "상품", "제품", "코드",
        "고객번호", "회원번호", "계약", "세번",
        // Hebrew, Arabic
        "מק\"ט", "דגם", "הזמנה", "חשבונית", "משלוח", "גרסה", "מעקב", "פריט", "מוצר", "מספר לקוח", "פנייה", "אסמכתא", "מכס",
        "الطلب", "طلب", "الشحنة", "الفاتورة", "فاتورة", "موديل", "القطعة", "التتبع", "الإصدار", "المنتج", "المرجع",
        "رقم العميل", "التعرفة", "الجمركية", "العقد", "الصنف", "صنف",
        // more of the same, and as they are typed without diacritics in field names
        "indeks", "rif.", "rif ", "jednací", "jednaci", "zasilk", "czesci", "zamowien", "objednavk", "gönderi", "gonderi",
        "siparis", "musteri", "nota fiscal", "lagernummer", "受注", "発注", "品目", "条码", "품목", "sendungs", "referans",
        "fatura no", "numero de serie", "número de serie", "numéro de série", "numero di serie",
    ]

    /// The identifier words that do not make a Luhn-valid number an id rather
    /// than a card: a card is paid with, charged, put on an account.
    private static let notCardIdWords: Set<String> = [
        "id", "#", "no.", "qty", "total", "price", "amount", "account", "iban", "bic", "zip", "postcode", "code", "ref",
        "stock", "stok", "codice", "コード", "코드",
    ]

    /// Words before a number that say payment card.
    private static let cardKeywords: [String] = [
        "card", "karte", "carte", "tarjeta", "carta", "cartão", "kaart", "karta", "kart", "карт", "visa", "mastercard",
        "amex", "カード", "卡", "카드", "כרטיס",
    ]


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
