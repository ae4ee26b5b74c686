import Crypto
// DataProtocol, through which swift-crypto's SHA256 reads the key blocks: no Foundation type is used.
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
    private let mac: KeyedSHA256
    private let normalizeEmails: Bool
    private var normalized: [UInt8] = []

    init(settings: PrivacySettings.Pseudonymization) {
        mac = KeyedSHA256(key: settings.key)
        normalizeEmails = settings.normalizeEmails
    }

    /// Appends the pseudonym of `value` (64 lowercase hex digits) to `out`.
    mutating func appendPseudonym(of value: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        if normalizeEmails, let email = emailForm(value) {
            normalized.removeAll(keepingCapacity: true)
            normalized.append(contentsOf: email.lazy.map { TextBytes.isASCIILetter($0) ? $0 | 0x20 : $0 })
            normalized.withUnsafeBytes { mac.appendHex(of: $0, to: &out) }
        } else {
            mac.appendHex(of: value, to: &out)
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

/// HMAC-SHA-256 (RFC 2104) with the key's two padded blocks hashed once, at
/// startup: each value then costs its own SHA-256 blocks and the outer one,
/// not the key set-up again (swift-crypto's `HMAC(key:)` redoes it for every
/// value, and reads the value through the generic `DataProtocol`). The
/// result is HMAC's, byte for byte (`PseudonymizerTests` checks it against
/// swift-crypto's `HMAC<SHA256>` for short, block-sized and long keys).
struct KeyedSHA256 {
    /// SHA-256 having absorbed the key XOR ipad, and the key XOR opad.
    private let inner: SHA256
    private let outer: SHA256
    private static let blockSize = 64

    init(key: SymmetricKey) {
        var block = [UInt8](repeating: 0, count: KeyedSHA256.blockSize)
        key.withUnsafeBytes { bytes in
            if bytes.count > KeyedSHA256.blockSize {
                // A key longer than a block is replaced by its hash.
                SHA256.hash(data: bytes).withUnsafeBytes { digest in
                    for index in digest.indices { block[index] = digest[index] }
                }
            } else {
                for index in bytes.indices { block[index] = bytes[index] }
            }
        }
        var inner = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(data: block.map { $0 ^ 0x5C })
        self.inner = inner
        self.outer = outer
    }

    /// The 32-byte code of `message`, handed to `body`.
    func withCode<R>(of message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        var hash = inner
        hash.update(bufferPointer: message)
        let innerDigest = hash.finalize()
        var outerHash = outer
        innerDigest.withUnsafeBytes { outerHash.update(bufferPointer: $0) }
        return outerHash.finalize().withUnsafeBytes(body)
    }

    /// Appends the code of `message` as 64 lowercase hex digits.
    func appendHex(of message: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        withCode(of: message) { HexText.append(bytes: $0, to: &out) }
    }
}
