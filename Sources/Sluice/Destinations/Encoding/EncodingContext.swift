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
    /// The last insert id made, and for which messageId and name (a copy, in a
    /// buffer kept from event to event: holding the encoder's own would cost
    /// it a retain, and its next change a copy).
    private var insertIDHash: (UInt64, UInt64)?
    private var insertIDMessageId: Int?
    private var insertIDName: [UInt8] = []
    /// The last `context` object read, kept from event to event (see `ContextMemo`).
    private let contextMemo = ContextMemo()
    /// The wall clock, for the providers' time ranges (`ProviderTimeRange`).
    private var clock = WallClock()

    public init() {}

    /// Forgets the previous event.
    public mutating func reset() {
        fieldsMemo = nil
        insertIDHash = nil
    }

    /// The event's fields, found on the first call.
    mutating func fields(of event: Event) -> EventFields {
        if let fieldsMemo { return fieldsMemo }
        let fields = EventFields(event, memo: contextMemo)
        fieldsMemo = fields
        return fields
    }

    /// Why `range`'s provider does not take an event at `time`, or nil when it does.
    @inline(__always)
    mutating func timeRefusal(_ range: ProviderTimeRange, _ time: EventTime) -> Rejection? {
        range.refusal(time, &clock)
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
        insertIDName.replaceAll(with: name.span)
        InsertID.appendQuoted(hash, to: &out)
    }

    /// Whether `name` is the name of the last insert id (most often it is: the
    /// destinations that send an event under its own name).
    @inline(__always)
    private mutating func sameName(_ name: [UInt8]) -> Bool {
        ByteSpans.equal(insertIDName.span, name.span)
    }
}
