import Foundation

/// Takes every secret out of a message before it is printed or written (an
/// error from a lower layer, a response that echoes a header): the secret as
/// it is, and as basic auth carries it (base64).
struct Redactor: Sendable {
    private var needles: [String] = []

    mutating func add(_ secret: String) {
        guard secret.count >= 4 else { return }
        needles.append(secret)
        needles.append(Data(secret.utf8).base64EncodedString())
        needles.append(Data((secret + ":").utf8).base64EncodedString())
        needles.sort { $0.count > $1.count }
    }

    /// Whether `bytes` hold any secret (then `scrub` their text): most text holds none, and is not copied.
    func finds(in bytes: [UInt8]) -> Bool {
        needles.contains { needle in
            let pattern = Array(needle.utf8)
            guard let first = pattern.first, bytes.count >= pattern.count else { return false }
            var index = 0
            while index <= bytes.count - pattern.count {
                if bytes[index] == first && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return true }
                index += 1
            }
            return false
        }
    }

    func scrub(_ text: String) -> String {
        needles.reduce(text) { $0.replacingOccurrences(of: $1, with: "[redacted]") }
    }
}
