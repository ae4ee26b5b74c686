import Crypto
import Foundation
@testable import Sluice
import Testing

/// The pseudonymizer's HMAC with the key blocks hashed once gives swift-crypto's HMAC, byte for byte.
@Suite struct KeyedSHA256Tests {
    static func reference(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    static func keyed(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        let mac = KeyedSHA256(key: SymmetricKey(data: key))
        return message.withUnsafeBytes { bytes in mac.withCode(of: bytes) { Array($0) } }
    }

    @Test(arguments: [0, 1, 20, 32, 63, 64, 65, 100, 200])
    func codeEqualsHMACForKeysShorterThanLongerThanAndOneBlock(keyLength: Int) {
        let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for messageLength in [0, 1, 16, 55, 56, 63, 64, 65, 119, 120, 500] {
            let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ keyLength) }
            #expect(Self.keyed(message, key: key) == Self.reference(message, key: key),
                    "key \(keyLength) bytes, message \(messageLength) bytes")
        }
    }

    @Test func oneKeyServesManyValuesWithoutCarryingState() {
        let key = Array("a benchmark key, not a secret".utf8)
        let mac = KeyedSHA256(key: SymmetricKey(data: key))
        for value in ["jane@example.com", "", "x", "jane@example.com"] {
            let message = Array(value.utf8)
            let code = message.withUnsafeBytes { bytes in mac.withCode(of: bytes) { Array($0) } }
            #expect(code == Self.reference(message, key: key))
        }
    }

    @Test func hexIsSixtyFourLowercaseDigitsOfTheCode() {
        let key = Array("k".utf8), message = Array("v".utf8)
        let mac = KeyedSHA256(key: SymmetricKey(data: key))
        var out: [UInt8] = Array("x".utf8)
        message.withUnsafeBytes { mac.appendHex(of: $0, to: &out) }
        let expected = "x" + Self.reference(message, key: key).map { String(format: "%02x", $0) }.joined()
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
