import Crypto
// DataProtocol, which swift-crypto's HMAC reads: no Foundation type is used.
import Foundation

/// Rule 5 of the `privacy` stage: a value becomes the lowercase hex of its
/// HMAC-SHA-256 under a secret key (swift-crypto): 64 characters.
///
/// Deterministic (same value, same key, same pseudonym, so joins across days
/// and files still work) and one-way without the key. A string is hashed as
/// its decoded UTF-8; an email (a value that is one address once trimmed) is
/// trimmed and lowercased first so `A@x.com ` and `a@x.com` agree; a number is
/// hashed as its JSON text. The key is read once, at startup, from the
/// environment or a file (`PrivacySettingsReader`), never from the pipeline text.
struct Pseudonymizer {
    private let key: SymmetricKey
    private let normalizeEmails: Bool
    private var normalized: [UInt8] = []
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    init(settings: PrivacySettings.Pseudonymization) {
        key = settings.key
        normalizeEmails = settings.normalizeEmails
    }

    /// Appends the pseudonym of `value` (64 lowercase hex digits) to `out`.
    mutating func appendPseudonym(of value: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var code = HMAC<SHA256>(key: key)
        if normalizeEmails, let email = emailForm(value) {
            normalized.removeAll(keepingCapacity: true)
            normalized.append(contentsOf: email.lazy.map { TextBytes.isASCIILetter($0) ? $0 | 0x20 : $0 })
            normalized.withUnsafeBytes { code.update(data: $0) }
        } else {
            code.update(data: value)
        }
        let mac = code.finalize()
        mac.withUnsafeBytes { bytes in
            for byte in bytes {
                out.append(Pseudonymizer.hex[Int(byte >> 4)])
                out.append(Pseudonymizer.hex[Int(byte & 0xF)])
            }
        }
    }

    /// The value without surrounding whitespace when that is exactly one email address.
    private func emailForm(_ value: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        guard value.contains(UInt8(ascii: "@")) else { return nil }
        var start = 0
        var end = value.count
        while start < end && Pseudonymizer.isSpace(value[start]) { start += 1 }
        while end > start && Pseudonymizer.isSpace(value[end - 1]) { end -= 1 }
        let trimmed = UnsafeRawBufferPointer(rebasing: value[start..<end])
        var whole = false
        trimmed.withMemoryRebound(to: UInt8.self) { text in
            EmailDetection.scanPlain(text) { found, foundEnd in
                if found == 0 && foundEnd == text.count { whole = true }
            }
        }
        return whole ? value[start..<end] : nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
