#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceJSON

/// What the destinations read of one event, worked out once per event by the
/// fan-out and shared by every destination it goes to: the event's fields
/// (one pass over the message and its `context`) and its insert id (two hashes
/// of the messageId and the provider's event name).
///
/// The fan-out keeps one and `reset()`s it for each event (and for each renamed
/// copy of one): what it learnt never outlives its event, while its scratch
/// space is kept, so an event costs no allocation here.
public struct EncodingContext {
    private var fieldsMemo: EventFields?
    private var insertID = InsertID()
    private var insertIDMemo: (messageId: Int?, name: [UInt8], hash: (UInt64, UInt64))?
    /// The last `context` object read, kept from event to event (see `ContextMemo`).
    private let contextMemo = ContextMemo()

    public init() {}

    /// Forgets the previous event.
    public mutating func reset() {
        fieldsMemo = nil
        insertIDMemo = nil
    }

    /// The event's fields, found on the first call.
    mutating func fields(of event: Event) -> EventFields {
        if let fieldsMemo { return fieldsMemo }
        let fields = EventFields(event, memo: contextMemo)
        fieldsMemo = fields
        return fields
    }

    /// Whether two names are the same bytes; most often the same array (the event's own name,
    /// shared by the destinations that send it as it is), told at once.
    @inline(__always)
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                a.count == b.count && (a.baseAddress == b.baseAddress || a.count == 0
                    || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
    }

    /// Appends the event's insert id for the provider event `name`, quoted (see `InsertID`).
    mutating func appendInsertID<Out: ByteSink>(messageId: Int?, name: [UInt8], document: JSONDocument, to out: inout Out) {
        if let memo = insertIDMemo, memo.messageId == messageId, EncodingContext.same(memo.name, name) {
            InsertID.appendQuoted(memo.hash, to: &out)
            return
        }
        let hash = insertID.hash(messageId: messageId, name: name, document: document)
        insertIDMemo = (messageId, name, hash)
        InsertID.appendQuoted(hash, to: &out)
    }
}
