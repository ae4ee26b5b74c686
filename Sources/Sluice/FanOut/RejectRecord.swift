import SluiceJSON

/// One line of the rejects output: the original line (text, or base64 when it
/// is not UTF-8), where it came from, which part of the pipeline refused it and why.
///
/// `{"source":"day.ndjson.gz","line_number":12,"stage":"input","reason":"invalid_json",
///   "detail":"unexpected end of input at byte 80","line":"{\"type\":..."}`
/// A too-long line keeps only its first 1 KiB: `"truncated":true,"line_bytes":70000`.
/// A destination's refusal adds `"destination":"NAME"`.
struct RejectRecord {
    var source: String
    var lineNumber: Int64
    var stage: String
    var destination: String?
    var rejection: Rejection
    var truncatedFrom: Int?

    func encode<Bytes: Collection, Out: ByteSink>(line: Bytes, into out: inout Out) where Bytes.Element == UInt8 {
        out.append(UInt8(ascii: "{"))
        appendKey("source", &out, first: true)
        JSONString.appendQuoted(source, to: &out)
        appendKey("line_number", &out)
        out.append(contentsOf: String(lineNumber).utf8)
        appendKey("stage", &out)
        JSONString.appendQuoted(stage, to: &out)
        if let destination {
            appendKey("destination", &out)
            JSONString.appendQuoted(destination, to: &out)
        }
        appendKey("reason", &out)
        JSONString.appendQuoted(rejection.reason.rawValue, to: &out)
        appendKey("detail", &out)
        JSONString.appendQuoted(rejection.detail, to: &out)
        let isText = Array(line).withSpan { UTF8Validation.isValid($0) }
        if isText {
            appendKey("line", &out)
            JSONString.appendQuoted(line, to: &out)
        } else {
            appendKey("line_base64", &out)
            out.append(UInt8(ascii: "\""))
            Base64.encode(line, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let truncatedFrom {
            appendKey("truncated", &out)
            out.append(contentsOf: "true".utf8)
            appendKey("line_bytes", &out)
            out.append(contentsOf: String(truncatedFrom).utf8)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    private func appendKey<Out: ByteSink>(_ key: String, _ out: inout Out, first: Bool = false) {
        if !first { out.append(UInt8(ascii: ",")) }
        JSONString.appendQuoted(key, to: &out)
        out.append(UInt8(ascii: ":"))
    }
}

/// Standard base64 (RFC 4648, with padding).
enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode<Bytes: Collection, Out: ByteSink>(_ input: Bytes, into out: inout Out) where Bytes.Element == UInt8 {
        let bytes = Array(input)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let chunk = UInt32(bytes[index]) << 16
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(contentsOf: "==".utf8)
        } else if rest == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(UInt8(ascii: "="))
        }
    }
}
