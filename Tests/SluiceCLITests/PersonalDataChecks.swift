import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Personal data found by checks of the tests' own (regexes, Luhn,
/// inet_pton), not by the privacy stage's detectors: what the end-to-end
/// tests search every output for.
enum PersonalData {
    private static func luhn(_ digits: [Int]) -> Bool {
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            let doubled = index % 2 == 1 ? digit * 2 : digit
            sum += doubled > 9 ? doubled - 9 : doubled
        }
        return sum % 10 == 0
    }

    /// What the checks find in one string: a description per finding (`email jane@example.com`).
    static func found(in text: String) throws -> [String] {
        var found: [String] = []
        let range = NSRange(text.startIndex..., in: text)
        func matches(_ pattern: String) throws -> [String] {
            try NSRegularExpression(pattern: pattern).matches(in: text, range: range).map { (text as NSString).substring(with: $0.range) }
        }
        found += try matches(#"[A-Za-z0-9._%+'-]+(@|%40)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"#).map { "email \($0)" }
        found += try matches(#"\+\d{1,3}[ .-]?\(?\d{1,4}\)?([ .-]?\d{2,4}){2,}"#).map { "phone \($0)" }
        found += try matches(#"(?<![\w.-])\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?![\w.-])"#).map { "phone \($0)" }
        // Digit runs standing alone (not inside a hyphenated id such as `dev-000217-96679752-4`).
        for candidate in try matches(#"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])"#) {
            // A payment card starts with 2-6 (ISO/IEC 7812 major industry identifiers of the card networks).
            let digits = candidate.compactMap { $0.wholeNumberValue }
            if (2...6).contains(digits[0]) && luhn(digits) { found.append("card \(candidate)") }
        }
        for candidate in try matches(#"(?<![\w.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w.])"#) {
            var address = in_addr()
            if inet_pton(AF_INET, candidate, &address) == 1 && !candidate.hasSuffix(".0") { found.append("ip \(candidate)") }
        }
        for candidate in try matches(#"(?<![\w:.])[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}(?![\w:])"#) where candidate.contains("::") || candidate.filter({ $0 == ":" }).count == 7 {
            var address = in6_addr()
            guard inet_pton(AF_INET6, candidate, &address) == 1 else { continue }
            // Unmasked: any bit set beyond the first 48.
            let tail = withUnsafeBytes(of: &address) { Array($0[6..<16]) }
            if tail.contains(where: { $0 != 0 }) { found.append("ip \(candidate)") }
        }
        return found
    }
}
