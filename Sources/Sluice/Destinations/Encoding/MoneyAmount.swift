import SluiceJSON

/// Money and counts in events, read as numbers: a JSON number, or a string
/// spelled exactly as one (`"20.37566"`: apps send amounts as text, and every
/// provider that takes text parameters does too). Shared by every provider
/// that reads an amount (Adjust's `revenue`, Amplitude's revenue fields,
/// Mixpanel's `amount`, GA4's `value`, `price` and `quantity`).
enum MoneyAmount {
    /// A money property read as a number: absent, not a usable amount, or its value.
    enum Amount: Equatable {
        case absent, invalid
        case value(Double)
    }

    /// The largest amount `formatAmount` writes (its four decimals are counted in an `Int64`);
    /// a hundred trillion in any currency is no purchase.
    static let maxAmount = 1e14

    /// `node` as an amount: a JSON number, or a string that is exactly a JSON number;
    /// negative, non-finite and too large (`maxAmount`) values are invalid, `null` and `""` absent.
    static func amount(_ document: JSONDocument, _ node: Int?) -> Amount {
        guard let node else { return .absent }
        let value: Double?
        switch document.kind(node) {
        case .null:
            return .absent
        case .number:
            value = EventFields.double(document, node)
        case .string:
            // Only strings that hold a number pay for the conversion.
            guard let parsed = document.withString(node, { text -> Amount in
                if text.isEmpty { return .absent }
                guard JSONNumberText.isNumber(text) else { return .invalid }
                return Double(String(decoding: text, as: UTF8.self)).map(Amount.value) ?? .invalid
            }) else { return .invalid }
            guard case .value(let number) = parsed else { return parsed }
            value = number
        default:
            return .invalid
        }
        guard let value, value.isFinite, value >= 0, value < maxAmount else { return .invalid }
        return .value(value)
    }

    /// Appends the amount at `node` (one `amount` found usable) as a JSON number,
    /// as it was written: a number's own text, a numeric string's text without its
    /// quotes; `negated` puts a minus sign in front (Amplitude's refunds).
    static func appendNumber<Out: ByteSink>(_ document: JSONDocument, _ node: Int, negated: Bool = false, to out: inout Out) {
        if negated { out.append(UInt8(ascii: "-")) }
        if document.kind(node) == .number {
            document.appendRaw(node, to: &out)
        } else {
            document.withString(node) { out.append(raw: $0) }
        }
    }

    /// Whether the value at `node` is a currency code as ISO 4217 writes one: three letters
    /// (`usd` is taken and written uppercase, as every provider wants it).
    static func isCurrency(_ document: JSONDocument, _ node: Int) -> Bool {
        document.withString(node) { $0.count == 3 && $0.allSatisfy { ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 } } ?? false
    }

    /// Appends a currency `isCurrency` took, quoted and uppercase.
    static func appendCurrency<Out: ByteSink>(_ document: JSONDocument, _ node: Int, to out: inout Out) {
        out.append(UInt8(ascii: "\""))
        document.withString(node) { for byte in $0 { out.append(byte >= 97 ? byte - 32 : byte) } }
        out.append(UInt8(ascii: "\""))
    }

    /// Up to 4 decimals, no exponent, no trailing zeros (an amount Sluice computed, `price` × `quantity`).
    static func formatAmount(_ value: Double) -> String {
        let scaled = Int64((value.magnitude * 10_000).rounded())
        var text = (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / 10_000)"
        var fraction = pad(Int(scaled % 10_000), 4)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
