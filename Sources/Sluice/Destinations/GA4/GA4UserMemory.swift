import SluiceJSON

/// `identify` for GA4: the Measurement Protocol has no call for it, and user
/// properties ride on events ([mp-user] "You can send user properties with
/// events"; a request's `user_properties` apply to that request). So an
/// identify's `traits` are made into user properties (the same rules as
/// `context.traits`: at most 25, names 24 characters and not reserved,
/// values 36 characters, strings or numbers; see `GA4Params.swift`) and
/// remembered for the device (`DeviceMemory`, per `anonymousId`, else
/// `userId`); the device's later events carry them in `user_properties`,
/// after the event's own `context.traits`, which win on a name both have,
/// within the 25.
///
/// A later identify of the device sets its names again and keeps the others
/// (the newest first, 25 at most). The memory holds `device_memory` bytes
/// (default 16MiB; `0` turns this off and identify is not taken, counted
/// `unsupported_type`); past it the least recently used device is forgotten.
/// Counted in `changes`: `user_properties_remembered` (identify messages
/// taken: no record now), `remembered_user_properties_added` (events that got
/// some), `user_properties_forgotten` (devices let go to stay within the bound).
extension GA4Destination {
    public var profileTypes: MessageTypes { userMemory.maxBytes > 0 ? MessageTypes(.identify) : [] }

    public mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                       side: inout SideRecords) -> ProfileOutcome {
        let fields = context.fields(of: event)
        let document = fields.document
        guard let traits = fields.traits, let device = DeviceKey(document, anonymousId: fields.anonymousIdNode, userId: fields.userIdNode)
        else { return .notTaken("no_traits") }
        // The traits as user properties, by the rules every request's follow; then split into name and value.
        var scratch = ByteBuffer(capacity: 512)
        appendUserProperties(document, traits, &scratch)
        var properties = GA4Destination.pairs(of: scratch)
        guard !properties.isEmpty else { return .notTaken("no_user_properties") }
        if let earlier = userMemory.value(for: device) {
            for pair in DeviceMemory.Pairs.decode(earlier) where !properties.contains(where: { $0.name == pair.name }) {
                guard properties.count < GA4Destination.maxUserProperties else {
                    counts.add("user_property_dropped_over_limit")
                    continue
                }
                properties.append(pair)
            }
        }
        let forgottenBefore = userMemory.forgotten
        if !userMemory.set(DeviceMemory.Pairs.encode(properties), for: device) { counts.add("user_properties_forgotten") }
        counts.add("user_properties_forgotten", userMemory.forgotten - forgottenBefore)
        counts.add("user_properties_remembered")
        return .remembered
    }

    /// What the device's identify messages left, for an event of it (nil when nothing, at once while the memory is empty).
    @inline(__always)
    func rememberedUserProperties(_ fields: EventFields) -> [UInt8]? {
        guard !userMemory.isEmpty,
              let device = DeviceKey(fields.document, anonymousId: fields.anonymousIdNode, userId: fields.userIdNode)
        else { return nil }
        return userMemory.value(for: device)
    }

    /// Appends remembered user properties whose names the object does not hold yet, while it holds fewer than 25.
    mutating func appendRemembered<Out: ByteSink>(_ remembered: [UInt8], _ object: inout JSONObjectEncoder, _ out: inout Out) {
        var added = false
        DeviceMemory.Pairs.forEach(remembered) { name, json in
            if isWritten(name, in: out) { return }
            if written.count >= GA4Destination.maxUserProperties {
                counts.add("user_property_dropped_over_limit")
                return
            }
            object.key(bytes: name, &out)
            markLastKey(name.count, out)
            out.append(contentsOf: json)
            added = true
        }
        if added { counts.add("remembered_user_properties_added") }
    }

    /// The members of a `user_properties` object Sluice wrote: each name and its `{"value":…}`.
    private static func pairs(of object: ByteBuffer) -> [(name: [UInt8], json: [UInt8])] {
        guard let document = try? JSONDocument.parse(object.array) else { return [] }
        var pairs: [(name: [UInt8], json: [UInt8])] = []
        document.forEachMember(of: 0) { key, value in
            guard let name = document.withString(key, { Array($0) }) else { return }
            pairs.append((name, document.withRawBytes(value) { Array($0) }))
        }
        return pairs
    }
}
