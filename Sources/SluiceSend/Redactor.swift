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

    func scrub(_ text: String) -> String {
        needles.reduce(text) { $0.replacingOccurrences(of: $1, with: "[redacted]") }
    }
}
