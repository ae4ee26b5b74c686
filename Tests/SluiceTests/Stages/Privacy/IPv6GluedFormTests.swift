@testable import Sluice
import Testing

/// IPv6 addresses glued to letters and punctuation in free text are still found whole.
@Suite struct IPv6GluedFormTests {
    static func redacted(_ text: String) -> String {
        var scanner = PIIScanner(enabled: [.ip], patterns: [])
        var matches: [PIIMatch] = []
        let bytes = Array(text.utf8)
        scanner.scan(bytes.span, into: &matches)
        var out: [UInt8] = []
        var copied = 0
        for match in matches {
            out += bytes[copied..<match.start] + Array("[ip]".utf8)
            copied = match.end
        }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        ("ip=fe80::1,", "ip=[ip],"),
        ("[2001:db8::1]:443", "[[ip]]:443"),
        ("::ffff:192.0.2.1", "[ip]"),
        ("via ::ffff:192.0.2.1.", "via [ip]."),
        ("fe80::1%eth0 up", "[ip] up"),
        ("fe80::1%25en0", "[ip]"),
        ("ip:fe80::1", "ip:[ip]"),
        ("addr:2001:db8::1;", "addr:[ip];"),
        ("ipv6=2001:db8::7,x", "ipv6=[ip],x"),
        ("src2001:db8::1", "src[ip]"),
        ("peer 2001:db8::1: refused", "peer [ip]: refused"),
        ("2001:db8::1ms", "[ip]ms"),
        ("(2001:db8:85a3:8d3:1319:8a2e:370:7348)", "([ip])"),
    ])
    func gluedAddressesAreMasked(text: String, expected: String) {
        #expect(Self.redacted(text) == expected)
    }

    @Test(arguments: ["std::vector", "dead::beef", "::1", "08:00:07", "00:1a:2b:3c:4d:5e", "a::b", "2026-11-20T08:00:07Z", "Foo::Bar"])
    func nonAddressesStay(text: String) {
        #expect(Self.redacted(text) == text)
    }
}
