import CSHA256
import Crypto
import Foundation
@testable import Sluice
import Testing

/// The pseudonymizer's HMAC, on SHA-256's compression function with the key
/// blocks hashed once, gives swift-crypto's HMAC and RFC 4231's codes, byte for byte.
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

    @Test func codeEqualsHMACForMessagesOfEveryLengthUpToThreeBlocks() {
        var generator = SystemRandomNumberGenerator()
        for keyLength in [16, 64] {
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for messageLength in 0...192 {
                let message = (0..<messageLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(Self.keyed(message, key: key) == Self.reference(message, key: key),
                        "key \(keyLength) bytes, message \(messageLength) bytes")
            }
        }
    }

    /// RFC 4231, test cases 1, 2, 3, 4, 6 and 7 (5 truncates the code).
    @Test(arguments: [
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        ("4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        ("0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (String(repeating: "aa", count: 131),
         "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (String(repeating: "aa", count: 131),
         "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func codeIsRFC4231s(vector: (key: String, data: String, code: String)) {
        func bytes(_ hex: String) -> [UInt8] {
            var out: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                out.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return out
        }
        let code = Self.keyed(bytes(vector.data), key: bytes(vector.key))
        #expect(code.map { String(format: "%02x", $0) }.joined() == vector.code)
    }

    @Test func theCPUsSHAExtensionsAndThePortableCodeCompressAlike() {
        var generator = SystemRandomNumberGenerator()
        for blocks in [1, 2, 3, 7] {
            for _ in 0..<200 {
                let data = (0..<(64 * blocks)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let start = (0..<8).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
                var fast = start, portable = start
                sluice_sha256_blocks(&fast, data, blocks)
                sluice_sha256_blocks_portable(&portable, data, blocks)
                #expect(fast == portable, "\(blocks) blocks")
            }
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
