import Crypto
import Foundation
@testable import Sluice
import Testing

/// The comparison benchmark's job "T1" (issue 9) in the `privacy` stage's
/// words: zero the last octet of `context.ip`; replace `traits.email` and
/// `properties.user_email` by the HMAC-SHA-256 hex of the value; mask emails
/// inside `properties.text` only; nothing else changed. Checked field by field
/// against the generated input, with an independent HMAC and email regex.
@Suite struct PrivacyT1Tests {
    static let settings = """
        {consent: false, ip: {fields: [context.ip], v4_keep_bits: 24, v6_keep_bits: 120},
         pseudonymize: {fields: [traits.email, properties.user_email], key_env: SLUICE_HMAC_KEY, normalize_emails: false},
         redact: {detectors: [email], paths: [properties.text]}}
        """

    static func hmac(_ value: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(value.utf8), using: SymmetricKey(data: Array(PrivacyCase.key.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// `context.ip` with its last octet (8 bits) zeroed, by inet_pton/inet_ntop.
    static func lastOctetZeroed(_ address: String) -> String? {
        if address.contains(":") {
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, address, &bytes) == 1 else { return nil }
            withUnsafeMutableBytes(of: &bytes) { $0[15] = 0 }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            return String(cString: text)
        }
        var parts = address.split(separator: ".").map(String.init)
        guard parts.count == 4 else { return nil }
        parts[3] = "0"
        return parts.joined(separator: ".")
    }

    @Test func aPipelineDoingT1ChangesExactlyWhatT1Says() throws {
        var stage = try PrivacyCase.stage(Self.settings)
        var options = GeneratorOptions()
        options.events = 4000
        options.seed = 9
        var generator = EventGenerator(options: options)
        var bytes: [UInt8] = []
        generator.run { bytes.append(contentsOf: $0) }
        let lines = ndjson(bytes)
        let outcome = StageCase.run(lines, through: &stage)
        #expect(outcome.events.count == lines.count, "T1 keeps every event")
        let email = try NSRegularExpression(pattern: "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}")
        var seen = (ip: 0, traits: 0, user: 0, text: 0)
        for (line, out) in zip(lines, outcome.lines) {
            var expected = PrivacyCase.object(line)
            if var context = expected["context"] as? [String: Any], let ip = context["ip"] as? String {
                context["ip"] = Self.lastOctetZeroed(ip)
                expected["context"] = context
                seen.ip += 1
            }
            if var traits = expected["traits"] as? [String: Any], let value = traits["email"] as? String {
                traits["email"] = Self.hmac(value)
                expected["traits"] = traits
                seen.traits += 1
            }
            if var properties = expected["properties"] as? [String: Any] {
                if let value = properties["user_email"] as? String {
                    properties["user_email"] = Self.hmac(value)
                    seen.user += 1
                }
                if let text = properties["text"] as? String {
                    let masked = email.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "[email]")
                    if masked != text { seen.text += 1 }
                    properties["text"] = masked
                }
                expected["properties"] = properties
            }
            #expect(NSDictionary(dictionary: PrivacyCase.object(out)).isEqual(to: expected), "\(line)\n→ \(out)")
        }
        // The stream has every case: v4 and v6 addresses, emails in traits, properties and text.
        #expect(seen.ip > 3000 && seen.traits > 20 && seen.user > 50 && seen.text > 20, "\(seen)")
        // Phones, cards and IPs in the text are not T1's business: left as they were.
        #expect(outcome.lines.contains { $0.contains("call +1 415 555 ") } && outcome.lines.contains { $0.contains("4111 1111 1111 1111") })
    }

    private func ndjson(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
    }
}
