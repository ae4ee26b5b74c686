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
    /// `fieldsMemo`, lent to the encoders without a retain: valid until `reset`.
    private var fieldsLent: Unretained<EventFields>?
    private var insertID = InsertID()
    /// The last insert id made, and for which messageId and name (a copy, in a
    /// buffer kept from event to event: holding the encoder's own would cost
    /// it a retain, and its next change a copy).
    private var insertIDHash: (UInt64, UInt64)?
    private var insertIDMessageId: Int?
    private var insertIDName: [UInt8] = []
    /// The last `context` object read, kept from event to event (see `ContextMemo`).
    private let contextMemo = ContextMemo()
    private let contextMemoLent: Unretained<ContextMemo>

    public init() {
        contextMemoLent = Unretained(contextMemo)
    }

    /// Forgets the previous event.
    public mutating func reset() {
        fieldsLent = nil
        fieldsMemo = nil
        insertIDHash = nil
    }

    /// The event's fields, found on the first call.
    mutating func fields(of event: Event) -> EventFields {
        lentFields(of: event).object
    }

    /// The event's fields, found on the first call, lent without a retain: the
    /// encoders' way, each event (`Unretained.with`). Valid until `reset`, which
    /// only the fan-out calls, between events.
    mutating func lentFields(of event: Event) -> Unretained<EventFields> {
        if let fieldsLent { return fieldsLent }
        let fields = EventFields(event, memo: contextMemoLent)
        let lent = Unretained(fields)
        fieldsLent = lent
        fieldsMemo = consume fields
        return lent
    }

    /// Appends the event's insert id for the provider event `name`, quoted (see `InsertID`).
    mutating func appendInsertID<Out: ByteSink>(messageId: Int?, name: [UInt8], document: JSONDocument, to out: inout Out) {
        if let hash = insertIDHash, insertIDMessageId == messageId, sameName(name) {
            InsertID.appendQuoted(hash, to: &out)
            return
        }
        let hash = insertID.hash(messageId: messageId, name: name, document: document)
        insertIDHash = hash
        insertIDMessageId = messageId
        name.withUnsafeBufferPointer { insertIDName.replaceSubrange(insertIDName.indices, with: $0) }
        InsertID.appendQuoted(hash, to: &out)
    }

    /// Whether `name` is the name of the last insert id (most often it is: the
    /// destinations that send an event under its own name).
    @inline(__always)
    private mutating func sameName(_ name: [UInt8]) -> Bool {
        insertIDName.withUnsafeBufferPointer { last in
            name.withUnsafeBufferPointer { name in
                last.count == name.count && (name.count == 0 || memcmp(last.baseAddress!, name.baseAddress!, name.count) == 0)
            }
        }
    }
}
