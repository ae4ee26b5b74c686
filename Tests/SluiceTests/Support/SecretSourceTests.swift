import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import Sluice
import SluiceTestSupport
import Testing

/// Where the pseudonymization key may come from: no message repeats a key,
/// and a key file is a small regular file that only its owner reads.
@Suite struct SecretSourceTests {
    typealias P = PrivacyCase

    private func configuration(keyFile path: String) throws -> PipelineConfiguration {
        try PipelineConfiguration.load(yaml: """
            version: 1
            stages: [{privacy: {pseudonymize: {fields: [userId], key_file: \(path)}}}]
            destinations: {archive: {type: ndjson}}
            """, file: "/tmp/test.yaml", environment: P.environment)
    }

    @Test func valuesThatLookLikeKeysAreToldFromVariableNames() {
        let keys = ["3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c", "q8Jv2mN0xR7tL4wZ1yB6cD3e", "k3/9a+Qz0w==", "JBSWY3DPEHPK3PXPJBSWY3DP",
                    "0123456789abcdef", "my key", "sk_live_abcdef1234567890abcdef", "sk_test_abcdefghijklmnopqrstuvwx",
                    "API_3f9a1c0b7d2e4f6a8b9c"]
        for key in keys { #expect(SecretSource.looksLikeKey(key), "\(key)") }
        let names = ["SLUICE_HMAC_KEY", "TEST_KEY", "hmac", "PSEUDONYM_KEY_2026", "_KEY", "AnalyticsPseudonymKey",
                     "MIXPANEL_SECRET_PROD_2026", "SK_LIVE", "AMPLITUDE_API_KEY_EU"]
        for name in names { #expect(!SecretSource.looksLikeKey(name), "\(name)") }
    }

    @Test func aKeyGivenAsKeyEnvIsNeverRepeatedInTheError() {
        let key = "3f9a1c0b7d2e4f6a8b9c0d1e2f3a4b5c6d7e8f90"
        let errors = P.errors("{pseudonymize: {fields: [userId], key_env: \"\(key)\"}}", environment: { _ in nil })
        #expect(errors.count == 1)
        #expect(errors.first?.contains("looks like a key") == true)
        // Not the key, nor any long piece of it.
        #expect(errors.allSatisfy { !$0.contains(key.prefix(8)) && !$0.contains(key.suffix(8)) })
        // A name is still named: it is no secret, and it says what to export.
        #expect(P.errors("{pseudonymize: {fields: [userId], key_env: MY_KEY}}", environment: { _ in nil }).first?.contains("MY_KEY") == true)
    }

    @Test(arguments: [("/dev/zero", "a character device"), ("/tmp", "a directory")])
    func aKeyFileThatIsNotARegularFileIsRefusedWithoutReadingIt(_ path: String, _ kind: String) {
        let errors = P.errors("{pseudonymize: {fields: [userId], key_file: \(path)}}")
        #expect(errors.count == 1 && errors[0].contains("it is \(kind), not a regular file"), "\(errors)")
    }

    @Test func aKeyFileThatIsAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("key.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading the usual way, a FIFO with no writer would block this test forever.
        let errors = P.errors("{pseudonymize: {fields: [userId], key_file: \(fifo)}}")
        #expect(errors.count == 1 && errors[0].contains("it is a FIFO"), "\(errors)")
    }

    @Test func aKeyFileIsReadUpTo64KiBAndRefusedBeyond() throws {
        let directory = TemporaryDirectory()
        let largest = directory.write("largest.key", [UInt8](repeating: UInt8(ascii: "k"), count: SecretSource.maxFileBytes))
        let tooLarge = directory.write("large.key", [UInt8](repeating: UInt8(ascii: "k"), count: SecretSource.maxFileBytes + 1))
        for path in [largest, tooLarge] { #expect(chmod(path, 0o600) == 0) }
        let key = try SecretSource.readFile(largest)
        #expect(key.bytes.count == 65536 && !key.readableByOthers)
        _ = try configuration(keyFile: largest)
        let errors = P.errors("{pseudonymize: {fields: [userId], key_file: \(tooLarge)}}")
        #expect(errors.count == 1 && errors[0].contains("it has 65537 bytes; a key file holds at most 64 KiB"), "\(errors)")
    }

    @Test func aKeyFileReadableByGroupOrOthersIsAWarningNotAnError() throws {
        let directory = TemporaryDirectory()
        let path = directory.write("hmac.key", P.key + "\n")
        #expect(chmod(path, 0o600) == 0)
        #expect(try configuration(keyFile: path).warnings.isEmpty)
        for mode: mode_t in [0o640, 0o604] {
            #expect(chmod(path, mode) == 0)
            let warnings = try configuration(keyFile: path).warnings
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.contains("is readable by group or others (mode 0\(String(mode, radix: 8)))") == true)
            #expect(warnings.first.map { $0.line == 2 } == true)
        }
        // The warning is in what `sluice validate` prints.
        #expect(chmod(path, 0o644) == 0)
        #expect(try configuration(keyFile: path).lint().contains { $0.severity == .warning && $0.message.contains("chmod 600") })
    }
}
