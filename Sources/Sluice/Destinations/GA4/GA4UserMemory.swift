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
/// some; an integer of its own, as it is counted per event), `user_properties_forgotten`
/// (devices let go to stay within the bound).
extension GA4Destination {
    public var profileTypes: MessageTypes { userMemory.maxBytes > 0 ? MessageTypes(.identify) : [] }

    public mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                       side: inout SideRecords) -> ProfileOutcome {
        let fields = context.fields(of: event)
        let document = fields.document
        guard let traits = fields.identifyTraits else { return .notTaken("no_traits") }
        let (anonymous, user) = (fields.anonymousIdNode, fields.userIdNode)
        // The traits as user properties, by the rules every request's follow; then split into name and value.
        var scratch = ByteBuffer(capacity: 512)
        appendUserProperties(document, traits, &scratch)
        var properties = members(of: scratch)
        guard !properties.isEmpty else { return .notTaken("no_user_properties") }
        if let earlier = userMemory.value(document, anonymousId: anonymous, userId: user) {
            for pair in DeviceMemory.Pairs.decode(earlier) where !properties.contains(where: { $0.name == pair.name }) {
                guard properties.count < GA4Destination.maxUserProperties else {
                    counts.add("user_property_dropped_over_limit")
                    continue
                }
                properties.append(pair)
            }
        }
        let forgottenBefore = userMemory.forgotten
        if !userMemory.set(DeviceMemory.Pairs.encode(properties), document, anonymousId: anonymous, userId: user) {
            counts.add("user_properties_forgotten")
        }
        counts.add("user_properties_forgotten", userMemory.forgotten - forgottenBefore)
        counts.add("user_properties_remembered")
        return .remembered
    }

    /// What the device's identify messages left, for an event of it (nil when nothing, at once while the memory is empty).
    @inline(__always)
    func rememberedUserProperties(_ fields: EventFields) -> [UInt8]? {
        guard !userMemory.isEmpty else { return nil }
        return userMemory.value(fields.document, anonymousId: fields.anonymousIdNode, userId: fields.userIdNode)
    }

    /// Appends remembered user properties whose names the object does not hold yet, while it holds fewer than 25.
    mutating func appendRemembered<Out: ByteSink>(_ remembered: [UInt8], _ object: inout JSONObjectEncoder, _ out: inout Out) {
        var added = false
        DeviceMemory.Pairs.forEach(remembered) { name, member in
            if isWritten(name, in: out) { return }
            if written.count >= GA4Destination.maxUserProperties {
                counts.add("user_property_dropped_over_limit")
                return
            }
            // `"name":{"value":…}` as it was written for the identify: the name starts after the lead and the quote.
            written.append((out.count + 2, name.count))
            object.member(raw: member, &out)
            added = true
        }
        if added { rememberedPropertiesAdded += 1 }
    }

    /// The members of the `user_properties` object just written into `object`,
    /// split where `written` says its names are (GA4's characters only: no
    /// escapes): each name and the member's text, `"name":{"value":…}`.
    private func members(of object: ByteBuffer) -> [(name: [UInt8], json: [UInt8])] {
        let bytes = object.bytes
        return written.indices.map { index in
            let name = written[index].start
            // From the name's quote to the `,` before the next name's quote, or to the closing `}`.
            let end = index + 1 < written.count ? written[index + 1].start - 2 : bytes.count - 1
            return (Array(bytes[name..<(name + written[index].count)]), Array(bytes[(name - 1)..<end]))
        }
    }
}
