/// The canonical Segment-spec message after all stages, for Segment's or
/// RudderStack's batch import (segment.com/docs/connections/sources/catalog/
/// libraries/server/http-api, "Batch"): 500 KB per batch, 32 KB per message,
/// `messageId` at most 100 characters (segment-docs spec-field-message-id).
///
/// `session` is Sluice's own extension, not a Segment type: not routed here.
public struct SegmentDestination: Destination {
    public static let type = DestinationType(
        name: "segment",
        defaultRotation: {
            // 2500 messages and 500 KB per batch request.
            var rotation = RotationPolicy()
            rotation.maxEvents = 2500
            rotation.maxBytes = 500_000
            return rotation
        }()
    ) { _, _, _ in SegmentDestination() }

    static let maxMessageIDLength = 100
    static let maxMessageBytes = 32 * 1024

    static let takes: Set<MessageType> = [.track, .screen, .page, .identify, .group, .alias]
    public var supportedTypes: Set<MessageType> { SegmentDestination.takes }

    public init() {}

    public mutating func encode(_ event: Event, into out: inout [UInt8]) -> EncodeOutcome {
        if let node = event.document.member("messageId"),
           let length = event.document.withString(node, { String(decoding: $0, as: UTF8.self).count }),
           length > SegmentDestination.maxMessageIDLength {
            return .refused(Rejection(.messageIDTooLong, "messageId has \(length) characters; Segment takes at most 100"))
        }
        let start = out.count
        event.document.write(to: &out)
        if out.count - start > SegmentDestination.maxMessageBytes {
            let size = out.count - start
            out.removeSubrange(start...)
            return .refused(Rejection(.messageTooLarge, "the message has \(size) bytes; Segment takes at most 32 KB"))
        }
        out.append(UInt8(ascii: "\n"))
        return .records(1)
    }
}
