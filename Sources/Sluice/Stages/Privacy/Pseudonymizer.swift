import SluiceJSON

/// Rule 5 of the `privacy` stage: a value becomes the lowercase hex of its
/// HMAC-SHA-256 under a secret key (`KeyedSHA256`): 64 characters.
///
/// Deterministic (same value, same key, same pseudonym, so joins across days
/// and files still work) and one-way without the key. A string is hashed as
/// its decoded UTF-8; an email (a value that is one address once trimmed) is
/// trimmed and lowercased first so `A@x.com ` and `a@x.com` agree; a number is
/// hashed as its JSON text. The key is read once, at startup, from the
/// environment or a file (`PrivacySettingsReader`), never from the pipeline text.
struct Pseudonymizer {
    private let mac: KeyedSHA256
    private let normalizeEmails: Bool
    private var normalized: [UInt8] = []

    init(settings: PrivacySettings.Pseudonymization) {
        mac = KeyedSHA256(key: settings.key)
        normalizeEmails = settings.normalizeEmails
    }

    /// Appends the pseudonym of `value` (64 lowercase hex digits) to `out`.
    mutating func appendPseudonym(of value: Span<UInt8>, to out: inout [UInt8]) {
        if normalizeEmails, let email = emailForm(value) {
            normalized.removeAll(keepingCapacity: true)
            for index in email { normalized.append(TextBytes.isASCIILetter(value[index]) ? value[index] | 0x20 : value[index]) }
            mac.appendHex(of: normalized.span, to: &out)
        } else {
            mac.appendHex(of: value, to: &out)
        }
    }

    /// Where the value is without surrounding whitespace, when that is exactly one email address.
    private func emailForm(_ value: Span<UInt8>) -> Range<Int>? {
        guard ByteSpans.firstIndex(of: UInt8(ascii: "@"), in: value) != nil else { return nil }
        var start = 0
        var end = value.count
        while start < end && Pseudonymizer.isSpace(value[start]) { start += 1 }
        while end > start && Pseudonymizer.isSpace(value[end - 1]) { end -= 1 }
        let trimmed = value.extracting(start..<end)
        var whole = false
        EmailDetection.scanPlain(trimmed) { found, foundEnd in
            if found == 0 && foundEnd == trimmed.count { whole = true }
        }
        return whole ? start..<end : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

