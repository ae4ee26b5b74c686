/// The fields provider adapters read from an event, looked up once.
///
/// Session data comes from the `session` stage (`context.session`), timed-event
/// data from the `timed` stage (`timed`, `properties.duration_ms`); both are
/// optional, and adapters fall back when they are absent.
struct EventFields {
    /// What the `timed` stage made of a timed message.
    enum Timed: Equatable {
        case completed(durationMs: Int64?)
        case abandoned
        case orphanStop
        case start, stop
    }

    struct Session: Equatable {
        var id: String?
        var startMs: Int64?
        var number: Int64?
        var seq: Int64?
        var engagementMs: Int64?
    }

    let document: JSONDocument
    let userId: [UInt8]?
    let anonymousId: [UInt8]?
    let messageId: [UInt8]?
    let properties: Int?
    let traits: Int?
    let context: Int?
    let timed: Timed?
    let session: Session?
    let time: EventTime

    init(_ event: Event) {
        let document = event.document
        self.document = document
        func text(_ key: String) -> [UInt8]? {
            guard let node = document.member(key) else { return nil }
            return document.withString(node) { $0.isEmpty ? nil : Array($0) } ?? nil
        }
        func object(_ key: String, of parent: Int = 0) -> Int? {
            guard let node = document.member(key, of: parent), document.tape[node].kind == .object else { return nil }
            return node
        }
        userId = text("userId")
        anonymousId = text("anonymousId")
        messageId = text("messageId")
        properties = object("properties")
        traits = object("traits")
        context = object("context")
        time = event.time
        var timed: Timed?
        if let node = document.member("timed") {
            switch document.string(node) {
            case "completed":
                var duration: Int64?
                if let properties, let value = document.member("duration_ms", of: properties) {
                    duration = EventFields.integer(document, value)
                }
                timed = .completed(durationMs: duration)
            case "abandoned": timed = .abandoned
            case "orphan_stop": timed = .orphanStop
            case "start": timed = .start
            case "stop": timed = .stop
            default: timed = nil
            }
        }
        self.timed = timed
        if let context, let node = object("session", of: context) {
            func number(_ key: String) -> Int64? {
                document.member(key, of: node).flatMap { EventFields.integer(document, $0) }
            }
            session = Session(id: document.member("id", of: node).flatMap { document.string($0) },
                              startMs: number("start_ms"), number: number("number"), seq: number("seq"),
                              engagementMs: number("engagement_ms"))
        } else {
            session = nil
        }
    }

    /// The tape index of the string at a path under `context`, if any.
    func contextStringNode(_ path: JSONPath) -> Int? {
        guard let context else { return nil }
        var node = context
        for component in path.components {
            guard let next = component.withUnsafeBytes({ document.member($0, of: node) }) else { return nil }
            node = next
        }
        return document.tape[node].kind == .string ? node : nil
    }

    /// The string at a path under `context` (`os.name`), if any.
    func contextString(_ path: JSONPath) -> String? {
        guard let context else { return nil }
        var node = context
        for component in path.components {
            guard let next = component.withUnsafeBytes({ document.member($0, of: node) }) else { return nil }
            node = next
        }
        return document.string(node)
    }

    /// The value of a JSON integer node (no fraction, no exponent, fits 64 bits).
    static func integer(_ document: JSONDocument, _ node: Int) -> Int64? {
        guard document.tape[node].kind == .number else { return nil }
        return Int64(String(decoding: document.rawBytes(node), as: UTF8.self))
    }

    /// The value of a JSON number node as a Double.
    static func double(_ document: JSONDocument, _ node: Int) -> Double? {
        guard document.tape[node].kind == .number else { return nil }
        return Double(String(decoding: document.rawBytes(node), as: UTF8.self))
    }
}

/// Cutting strings to a provider's limit without breaking UTF-8.
enum TextLimit {
    /// Appends the string at `node` as JSON, cut to at most `maxBytes` bytes of
    /// UTF-8 and `maxScalars` characters; returns whether it was cut.
    static func appendString(_ document: JSONDocument, _ node: Int, maxBytes: Int = .max, maxScalars: Int = .max,
                             to out: inout [UInt8]) -> Bool {
        let current = document.tape[node]
        let rawBody = Int(current.end - current.start) - 2
        // Decoded text is never longer than its JSON form, in bytes or in characters.
        if rawBody <= maxBytes && rawBody <= maxScalars {
            out.append(contentsOf: document.rawBytes(node))
            return false
        }
        let decoded = document.withString(node) { Array($0) } ?? []
        let cut = cutUTF8(decoded, maxBytes: maxBytes, maxScalars: maxScalars)
        JSONString.appendQuoted(cut, to: &out)
        return cut.count < decoded.count
    }

    /// The longest prefix within both limits that ends on a character boundary.
    static func cutUTF8(_ bytes: [UInt8], maxBytes: Int = .max, maxScalars: Int = .max) -> ArraySlice<UInt8> {
        var scalars = 0
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            if index + length > maxBytes || scalars + 1 > maxScalars { break }
            index += length
            scalars += 1
        }
        return bytes[..<min(index, bytes.count)]
    }
}

/// A stable, provider-safe id for a message: the same message (messageId and
/// event name) always gives the same id, so a re-sent file deduplicates at the
/// provider. 128 bits of `StableHash`, written as a UUID-shaped 36-character
/// string of `[0-9a-f-]` (Mixpanel's `$insert_id` rule: at most 36 characters
/// of `[A-Za-z0-9-]`; Amplitude's `insert_id`).
enum InsertID {
    static func make(messageId: [UInt8]?, name: [UInt8], fallback document: JSONDocument) -> [UInt8] {
        var material: [UInt8]
        if let messageId {
            material = messageId
            material.append(0)
            material.append(contentsOf: name)
        } else {
            // No messageId: the message's own bytes identify it.
            material = document.bytes
        }
        let (high, low) = material.withUnsafeBytes {
            (StableHash.hash($0, seed: StableHash.seedA), StableHash.hash($0, seed: StableHash.seedB))
        }
        return uuidShaped(high, low)
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` from 128 bits.
    static func uuidShaped(_ high: UInt64, _ low: UInt64) -> [UInt8] {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, nibble) in (0..<32).enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { out.append(UInt8(ascii: "-")) }
            let word = nibble < 16 ? high : low
            let shift = UInt64((15 - nibble % 16) * 4)
            out.append(hex[Int((word >> shift) & 0xF)])
        }
        return out
    }
}
