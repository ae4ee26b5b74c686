import Sluice
import SluiceJSON

/// The Segment HTTP Tracking API's endpoints `sluice serve` answers.
package enum IngestEndpoint: String, Sendable, CaseIterable {
    case batch, track, identify, page, screen, group, alias

    /// `/v1/track` → `.track`; nil for any other path.
    package init?(path: String) {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        guard bare.hasPrefix("/v1/") else { return nil }
        var name = bare.dropFirst(4)
        if name.hasSuffix("/") { name = name.dropLast() }
        guard let endpoint = IngestEndpoint(rawValue: String(name)) else { return nil }
        self = endpoint
    }
}

/// Segment's limits: 32 KB per message, 500 KB per batch request
/// (https://segment.com/docs/connections/sources/catalog/libraries/server/http-api/, "Max request size").
package enum IngestLimits {
    package static let messageBytes = 32 * 1024
    package static let batchBytes = 500 * 1024
}

/// A request that will never be accepted as it is: 400 with this reason (the
/// SDKs drop the batch), or 401 for a write key that is missing or unknown.
package struct IngestRefusal: Error, Equatable, Sendable {
    package var status: Int
    package var reason: String

    package static func badRequest(_ reason: String) -> IngestRefusal { IngestRefusal(status: 400, reason: reason) }
    package static func unauthorized(_ reason: String) -> IngestRefusal { IngestRefusal(status: 401, reason: reason) }
}

/// What a request's peer says about where it came from.
package struct IngestPeer: Sendable {
    /// The socket's address (IPv4 or IPv6 text).
    package var address: String?
    /// `X-Forwarded-For` as sent, used only when `address` is a trusted proxy.
    package var forwardedFor: String?

    package init(address: String?, forwardedFor: String? = nil) {
        self.address = address
        self.forwardedFor = forwardedFor
    }

    /// The client's address: the last address of `X-Forwarded-For` that is not
    /// itself a trusted proxy (walking from the right, as each proxy appends
    /// the address it saw), when the peer is a trusted proxy; else the peer.
    package func clientAddress(trustedProxies: Set<String>) -> String? {
        guard let address, trustedProxies.contains(address), let forwardedFor else { return address }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !trustedProxies.contains(hop) { return hop }
        return hops.first ?? address
    }
}

/// A request's body → the NDJSON lines `sluice serve` journals: one
/// normalized message a line, as Segment's API would have stored it.
///
/// - Limits: a message over 32 KB (its JSON text) or a batch over 500 KB is
///   refused whole (400), as Segment refuses it; so is a body that is not a
///   JSON object, a `batch` that is not an array of objects, and a single
///   message that is not an object.
/// - The write key: Basic auth's user name, else `writeKey` in the body; one
///   that is missing or not among the keys is 401. `writeKey` is removed
///   from every message.
/// - `receivedAt` is the server's clock (one instant for the whole request);
///   a message's own `receivedAt` is replaced.
/// - `timestamp`, after Segment's spec (connections/spec/common, "Timestamp
///   overview"): with `originalTimestamp` and `sentAt`,
///   `receivedAt - (sentAt - originalTimestamp)`, the device clock's skew taken
///   out; else the message's own `timestamp`, as a server library sets it
///   (kept as it is); else `originalTimestamp`; else `receivedAt`.
/// - A batch's `context` and `sentAt` apply to every item: the batch's
///   context members go into each item's context unless the item has a member
///   of that name, and the batch's `sentAt` is the item's unless it has its own.
/// - `context.ip`: kept when the message gives it, else the client's address
///   (the peer's; `X-Forwarded-For` only from a trusted proxy).
/// - Single-message endpoints set `type` from the path (`/v1/track`: `track`).
///
/// Everything else passes as it is (values re-written compact): a message
/// the pipeline will reject (no `type`, no `userId`/`anonymousId`) is still
/// journaled, and rejected by the pipeline with its reason, as in `sluice run`.
package struct MessageNormalizer: Sendable {
    package var keys: WriteKeys
    package var trustedProxies: Set<String>

    package init(keys: WriteKeys, trustedProxies: Set<String> = []) {
        self.keys = keys
        self.trustedProxies = trustedProxies
    }

    /// The normalized lines (each ending in a newline) and their count.
    package func normalize(body: [UInt8], endpoint: IngestEndpoint, basicUser: String?, peer: IngestPeer,
                           receivedAt: EventTime) throws(IngestRefusal) -> (lines: [UInt8], count: Int) {
        if body.count > IngestLimits.batchBytes {
            throw .badRequest("the request body is \(body.count) bytes; a batch may have at most \(IngestLimits.batchBytes)")
        }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw .badRequest("the body is not valid JSON: \(error.message)")
        }
        guard document.kind(0) == .object else { throw .badRequest("the body is not a JSON object") }
        var bodyKey: String?
        var items: [Int] = []
        var batchContext: Int?
        var batchSentAt: Int?
        if endpoint == .batch {
            guard let batch = document.member("batch") else { throw .badRequest("the body has no \"batch\" array") }
            guard document.kind(batch) == .array else { throw .badRequest("\"batch\" is not an array") }
            items = document.elements(of: batch)
            bodyKey = document.member("writeKey").flatMap { document.string($0) }
            batchContext = document.member("context").flatMap { document.kind($0) == .object ? $0 : nil }
            batchSentAt = document.member("sentAt")
        } else {
            items = [0]
        }
        for (index, item) in items.enumerated() {
            guard document.kind(item) == .object else { throw .badRequest("batch item \(index) is not a JSON object") }
            if document.rawLength(item) > IngestLimits.messageBytes {
                let which = endpoint == .batch ? "batch item \(index)" : "the message"
                throw .badRequest("\(which) is \(document.rawLength(item)) bytes; a message may have at most \(IngestLimits.messageBytes)")
            }
            if bodyKey == nil { bodyKey = document.member("writeKey", of: item).flatMap { document.string($0) } }
        }
        guard let key = basicUser.flatMap({ $0.isEmpty ? nil : $0 }) ?? bodyKey else {
            throw .unauthorized("no write key: give it as the Basic auth user name (or writeKey in the body)")
        }
        guard keys.accepts(key) else { throw .unauthorized("the write key is not known to this server") }

        let client = peer.clientAddress(trustedProxies: trustedProxies)
        var out: [UInt8] = []
        out.reserveCapacity(body.count + items.count * 96)
        for item in items {
            appendMessage(document, item: item, type: endpoint == .batch ? nil : endpoint.rawValue, batchContext: batchContext,
                          batchSentAt: batchSentAt, client: client, receivedAt: receivedAt, to: &out)
            out.append(0x0A)
        }
        return (out, items.count)
    }

    private func appendMessage(_ document: JSONDocument, item: Int, type: String?, batchContext: Int?, batchSentAt: Int?,
                               client: String?, receivedAt: EventTime, to out: inout [UInt8]) {
        let members = document.members(of: item)
        var named: [String: Int] = [:]
        for (key, value) in members {
            if let name = document.string(key), named[name] == nil { named[name] = value }
        }
        let sentAtNode = named["sentAt"] ?? batchSentAt
        let timestamp = Self.timestamp(document, original: named["originalTimestamp"], sentAt: sentAtNode,
                                       own: named["timestamp"], receivedAt: receivedAt)
        let received = receivedAt.iso8601

        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONString.appendQuoted(name, to: &out)
            out.append(UInt8(ascii: ":"))
        }
        var wrote: Set<String> = []
        for (keyNode, value) in members {
            guard let name = document.string(keyNode), !wrote.contains(name) else { continue }
            wrote.insert(name)
            switch name {
            case "writeKey", "receivedAt":
                continue
            case "type" where type != nil:
                key(name)
                JSONString.appendQuoted(type!, to: &out)
            case "timestamp":
                key(name)
                append(timestamp, document, to: &out)
            case "context":
                key(name)
                appendContext(document, own: value, batch: batchContext, client: client, to: &out)
            default:
                key(name)
                document.write(node: value, to: &out)
            }
        }
        if let type, !wrote.contains("type") {
            key("type")
            JSONString.appendQuoted(type, to: &out)
        }
        if !wrote.contains("context") {
            key("context")
            appendContext(document, own: nil, batch: batchContext, client: client, to: &out)
        }
        if !wrote.contains("sentAt"), let batchSentAt {
            key("sentAt")
            document.write(node: batchSentAt, to: &out)
        }
        key("receivedAt")
        JSONString.appendQuoted(received, to: &out)
        if !wrote.contains("timestamp") {
            key("timestamp")
            append(timestamp, document, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A message's `timestamp`: a computed instant, or a node of the body copied as it is.
    enum Timestamp: Equatable {
        case computed(EventTime)
        case node(Int)
    }

    static func timestamp(_ document: JSONDocument, original: Int?, sentAt: Int?, own: Int?, receivedAt: EventTime) -> Timestamp {
        let originalTime = original.flatMap { document.string($0) }.flatMap { EventTime.parseISO8601($0) }
        let sentTime = sentAt.flatMap { document.string($0) }.flatMap { EventTime.parseISO8601($0) }
        if let originalTime, let sentTime {
            return .computed(EventTime(microseconds: receivedAt.microseconds - (sentTime.microseconds - originalTime.microseconds)))
        }
        if let own { return .node(own) }
        if let original, originalTime != nil { return .node(original) }
        return .computed(receivedAt)
    }

    private func append(_ timestamp: Timestamp, _ document: JSONDocument, to out: inout [UInt8]) {
        switch timestamp {
        case let .computed(time): JSONString.appendQuoted(time.iso8601, to: &out)
        case let .node(node): document.write(node: node, to: &out)
        }
    }

    /// The item's context with the batch's members it lacks, and `ip` when neither gives one.
    private func appendContext(_ document: JSONDocument, own: Int?, batch: Int?, client: String?, to out: inout [UInt8]) {
        if let own, document.kind(own) != .object {
            // Not an object: passed as it is (the pipeline decides what it makes of it).
            document.write(node: own, to: &out)
            return
        }
        out.append(UInt8(ascii: "{"))
        var names: Set<String> = []
        var first = true
        for object in [own, batch].compactMap({ $0 }) {
            for (keyNode, value) in document.members(of: object) {
                guard let name = document.string(keyNode), names.insert(name).inserted else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONString.appendQuoted(name, to: &out)
                out.append(UInt8(ascii: ":"))
                document.write(node: value, to: &out)
            }
        }
        if !names.contains("ip"), let client {
            if !first { out.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted("ip", to: &out)
            out.append(UInt8(ascii: ":"))
            JSONString.appendQuoted(client, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}
