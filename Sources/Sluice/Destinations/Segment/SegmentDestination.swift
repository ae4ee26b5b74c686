import SluiceJSON

/// The canonical Segment-spec message after all stages, for Segment's or
/// RudderStack's batch import (`POST /v1/batch` with `{"batch": [...]}`).
///
/// Each rule below cites the page it comes from:
/// - [http]: segment.com/docs/connections/sources/catalog/libraries/server/http-api
///   ("Max request size": "a maximum of 500KB per batch request and 32KB per call";
///   "Batch": at most 2500 events; segment-docs src/_includes/content/tracking-api-limit.md)
/// - [common]: segment.com/docs/connections/spec/common ("messageId"; the 100-character
///   limit is segment-docs src/_includes/content/spec-field-message-id.md)
///
/// `session` is Sluice's own extension, not a Segment type: not routed here
/// (counted `unsupported_type`).
public struct SegmentDestination: Destination {
    public static let type = DestinationType(
        name: "segment",
        defaultRotation: {
            // [http] 2500 messages and 500 KB per batch request. The request is the
            // file's lines joined by commas inside `{"batch":[…]}` (plus whatever
            // `context`/`sentAt` the uploader adds): 1 KB is left for that envelope.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2500
            rotation.maxBytes = 500_000 - 1024
            return rotation
        }(),
        rejectReasons: [.messageIDTooLong, .messageTooLarge],
        // [http] api.segment.io; EU workspaces: events.eu1.segmentapis.com (Regional Segment).
        send: SendSupport(regions: ["us", "eu"]),
        delivery: SegmentDestination.delivery
    ) { _, _, _ in SegmentDestination() }

    /// [common] messageId: at most 100 characters.
    static let maxMessageIDLength = 100
    /// [http] "32KB per call": a message of more bytes gets a 400.
    static let maxMessageBytes = 32 * 1024

    static let takes = MessageTypes(.track, .screen, .page, .identify, .group, .alias)
    public var supportedTypes: MessageTypes { SegmentDestination.takes }

    private var counts = ChangeCounts()
    public var changes: [(name: String, value: Int)] { counts.entries }

    public init() {}

    private static let idFields: [(key: StaticString, path: JSONPath)] = [
        (MessageIdentity.userID, JSONPath("userId")), (MessageIdentity.anonymousID, JSONPath("anonymousId")),
        (MessageIdentity.messageID, JSONPath("messageId")),
    ]

    /// Whether an id field is a string that is no id (`""`, blank) or a number:
    /// [common] ids are strings, and an empty one would be taken as an id.
    private static func hasIDToMend(_ document: JSONDocument) -> Bool {
        // A loop, not `contains` with a closure: the closure's captured document was retained at every read.
        for field in idFields {
            guard let node = document.member(field.key, of: 0) else { continue }
            let kind = document.kind(node)
            if kind == .number || (kind == .string && MessageIdentity.id(document, node) == nil) { return true }
        }
        return false
    }

    /// Leaves out blank ids (counted `blank_id_left_out`) and writes numeric ids as strings (`numeric_id_quoted`).
    private static func mendIDs(_ document: inout JSONDocument, _ counts: inout ChangeCounts) {
        for field in idFields {
            guard let node = document.member(field.key, of: 0) else { continue }
            switch document.kind(node) {
            case .number:
                var json: [UInt8] = []
                MessageIdentity.appendQuoted(document, node, to: &json)
                _ = document.set(field.path, json: json)
                counts.add("numeric_id_quoted")
            case .string where MessageIdentity.id(document, node) == nil:
                _ = document.remove(field.path)
                counts.add("blank_id_left_out")
            default:
                break
            }
        }
    }

    public mutating func encode(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer) -> EncodeOutcome {
        var document = event.document
        if SegmentDestination.hasIDToMend(document) { SegmentDestination.mendIDs(&document, &counts) }
        if let node = document.member("messageId", of: 0), document.kind(node) == .string,
           document.decodedLength(node) > SegmentDestination.maxMessageIDLength,
           let length = document.withString(node, TextLimit.scalarCount), length > SegmentDestination.maxMessageIDLength {
            return .refused(Rejection(.messageIDTooLong, "messageId has \(length) characters; Segment takes at most 100"))
        }
        let start = out.count
        document.write(to: &out)
        let size = out.count - start
        if size > SegmentDestination.maxMessageBytes {
            out.removeSubrange(start...)
            return .refused(Rejection(.messageTooLarge, "the message has \(size) bytes; Segment takes at most 32 KB (32768 bytes)"))
        }
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }
}

extension RejectReason {
    /// Segment: `messageId` longer than 100 characters.
    static let messageIDTooLong = RejectReason("message_id_too_long")
    /// Segment: the message is over 32 KB.
    static let messageTooLarge = RejectReason("message_too_large")
}
