import SluiceJSON

/// Amplitude's user properties, groups and user mappings: `identify`,
/// `group` and `alias` messages. Each rule cites its page (and [v2], [identify]
/// as on `AmplitudeDestination`):
/// - [group-identify]: amplitude.com/docs/apis/analytics/group-identify (`/groupidentify`:
///   `group_type`, `group_value`, `group_properties`; "The maximum number of group identifies
///   per request is 1024. The maximum number of group properties per request is 1024. The
///   maximum byte size/per request is 1 mb.")
/// - [usermap]: amplitude.com/docs/apis/analytics/user-mapping (`/usermap`: `user_id`,
///   `global_user_id`; "Max of 2000 requests/events in a batch. Max size of 1MB.")
/// - [segment]: segment.com/docs/connections/destinations/catalog/amplitude/ ("Group": the
///   "Amplitude Group Type Trait" and "Amplitude Group Value Trait" settings, else the type
///   "[Segment] Group" and the value the group id; "Segment always adds groups as
///   user_properties"; "Alias": maps to `usermap`, off by default, "previousId → user_id,
///   userId → global_user_id"); RudderStack does the same (rudder-transformer
///   src/v0/destinations/am/docs/businesslogic.md: group → `$identify` with `groups` and
///   `user_properties`, and `/groupidentify`)
///
/// - `identify` → `$identify` with `user_properties: {"$set": traits}`, the
///   traits named in `set_once` under `$setOnce` ([identify] "Set the value
///   only if the value hasn't already been set") instead.
/// - `group` → a `$identify` event with `groups: {TYPE: VALUE}` and
///   `user_properties: {"$set": {TYPE: VALUE}}` (the user joins the group), and a
///   group identification `{"group_type", "group_value", "group_properties": traits}`
///   in a side output of its own (`amplitude.groups`), at most 1024 group
///   properties per file.
/// - `alias` → with `user_mapping: true`, `{"user_id": previousId, "global_user_id": userId}`
///   in a side output of its own (`amplitude.user_mappings`); by default not
///   taken (`user_mapping_off`: the mapping needs Amplitude's Portfolio add-on).
extension AmplitudeDestination {
    static let groupsOutput = 0
    static let userMappingsOutput = 1
    /// [group-identify] at most 1024 group properties per request.
    static let maxGroupProperties = 1024
    /// [segment] the legacy group type, when the type and value traits are not configured or not in the message.
    static let defaultGroupType: [UInt8] = Array("[Segment] Group".utf8)

    static let sideOutputKinds: [SideOutputKind] = {
        // A request is the file's lines joined in a JSON list (`identification=[…]`, `mapping=[…]`):
        // 1 KiB is left for the rest of the body, as for events.
        var groups = RotationPolicy()
        groups.maxEvents = 1024
        groups.maxBytes = 1_000_000 - 1024
        var mappings = RotationPolicy()
        mappings.maxEvents = 2000
        mappings.maxBytes = 1_000_000 - 1024
        return [SideOutputKind(name: "groups", defaultRotation: groups, perFileLimit: ("group properties", maxGroupProperties)),
                SideOutputKind(name: "user_mappings", defaultRotation: mappings)]
    }()

    public var profileTypes: MessageTypes { MessageTypes(.group, .alias) }

    /// `user_id` and `device_id`, each left out when it is not an id Amplitude keeps; nil when neither is.
    @inline(__always)
    mutating func usableIDs(_ fields: EventFields) -> (user: Int?, device: Int?)? {
        let minimum = minIDLength
        var user = fields.userIdNode
        var device = fields.anonymousIdNode
        if let node = user, !fields.withID(node, { AmplitudeDestination.isUsableID($0, minIDLength: minimum) }) {
            user = nil
            counts.add("user_id_left_out")
        }
        if let node = device, !fields.withID(node, { AmplitudeDestination.isUsableID($0, minIDLength: minimum) }) {
            device = nil
            counts.add("device_id_left_out")
        }
        // [v2] "If the event doesn't have a user_id or device_id value, Amplitude can reject the with a 400 status."
        return user == nil && device == nil ? nil : (user, device)
    }

    /// [v2] session_id: the session's start in ms; -1 sends the event out of
    /// session. Never a session that began after the event (an upstream
    /// `context.session` saying so is not believed: counted, sent out of session).
    @inline(__always)
    mutating func sessionID(_ fields: EventFields) -> Int64 {
        guard let start = fields.session?.startMs else { return -1 }
        if start > fields.time.milliseconds {
            counts.add("session_after_event")
            return -1
        }
        return start
    }

    var missingIDs: Rejection {
        Rejection(.missingUserOrDeviceID,
                  "neither user_id nor device_id is an id Amplitude keeps (at least \(minIDLength) characters, not a placeholder)")
    }

    /// The first-touch referrer `context.page` carries, and the user property it is set once as.
    static let initialReferrers: [(name: StaticString, field: MappedContext.Field)] = [
        ("initial_referrer", .initialReferrer), ("initial_referring_domain", .initialReferringDomain),
    ]

    /// An identify's `user_properties`: `{"$set": …, "$setOnce": …}`, each operation only when
    /// it has traits (`{"$set":{}}` without any). The traits are the message's (`identifyTraits`);
    /// `$setOnce` holds those named in `set_once` and the first-touch referrer of
    /// `context.page` (`initial_referrer`, `initial_referring_domain`, as Amplitude's
    /// browser SDK sets them once; a trait of the same name wins).
    mutating func appendIdentifyOperations(_ fields: EventFields, _ out: inout ByteBuffer) {
        let document = fields.document
        let traits = fields.identifyTraits
        var operations = JSONObjectEncoder()
        let setOnce = self.setOnce
        let referrers = fields.mapped.present & (MappedContext.Field.initialReferrer.bit | MappedContext.Field.initialReferringDomain.bit)
        if setOnce.isEmpty && referrers == 0 {
            // Every trait is set: the object copied at once, strings cut.
            operations.key("$set", &out)
            if let traits {
                counts.add("string_cut", TextLimit.appendValue(document, traits, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out))
            } else {
                out.append(UInt8(ascii: "{"))
                out.append(UInt8(ascii: "}"))
            }
            operations.close(&out)
            return
        }
        for (operation, once) in [("$set" as StaticString, false), ("$setOnce", true)] {
            let selected = traits.map { traits in
                document.members(of: traits).filter { member in
                    (document.withString(member.key) { name in setOnce.contains { $0.elementsEqual(name) } } ?? false) == once
                }
            } ?? []
            let referrerNodes = once ? AmplitudeDestination.initialReferrers.compactMap { referrer -> (StaticString, Int)? in
                guard let node = fields.mapped.node(referrer.field) else { return nil }
                if let traits, document.member(ByteSpans.array(referrer.name), of: traits) != nil {
                    counts.add("context_property_overridden")
                    return nil
                }
                return (referrer.name, node)
            } : []
            guard !selected.isEmpty || !referrerNodes.isEmpty || !once else { continue }
            operations.key(operation, &out)
            var object = JSONObjectEncoder()
            for member in selected {
                object.key(document, node: member.key, &out)
                counts.add("string_cut", TextLimit.appendValue(document, member.value, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out))
            }
            for (name, node) in referrerNodes {
                object.key(name, &out)
                if TextLimit.appendString(document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) { counts.add("string_cut") }
            }
            object.close(&out)
        }
        operations.close(&out)
    }

    public mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                       side: inout SideRecords) -> ProfileOutcome {
        let fields = context.fields(of: event)
        if event.type == .alias { return encodeAlias(fields, side: &side) }
        guard let ids = usableIDs(fields) else { return .refused(missingIDs) }
        if let refusal = context.timeRefusal(.amplitude, fields.time) { return .refused(refusal) }
        let document = fields.document
        guard let (type, value) = groupTypeAndValue(fields) else { return .notTaken("no_group_id") }
        // [segment] the user joins the group: a `$identify` with the group, and the group as a user property.
        var record = JSONObjectEncoder()
        record.string("event_type", bytes: Array("$identify".utf8), &out)
        if let user = ids.user { record.id("user_id", document, node: user, &out) }
        if let device = ids.device { record.id("device_id", document, node: device, &out) }
        record.integer("time", fields.time.milliseconds, &out)
        record.integer("session_id", sessionID(fields), &out)
        record.key("insert_id", &out)
        context.appendInsertID(messageId: fields.messageIdNode, name: Array("$identify".utf8), document: document, to: &out)
        record.key("groups", &out)
        appendGroup(type, value, &out)
        record.key("user_properties", &out)
        var operations = JSONObjectEncoder()
        operations.key("$set", &out)
        appendGroup(type, value, campaign: fields, &out)
        operations.close(&out)
        // As on any other event: the app's version, the language and the carrier, and where the user is.
        appendContextField("app_version", fields.node(.appVersion), document, &record, &out)
        if (fields.mapped.present | fields.mapped.invalid) & AmplitudeDestination.mappedFields != 0 {
            appendMappedContext(fields, &record, &out)
        }
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
        // [group-identify] the group's own properties, from the traits.
        if let traits = fields.traits {
            let properties = min(document.members(of: traits).count, AmplitudeDestination.maxGroupProperties)
            side.append(to: AmplitudeDestination.groupsOutput, weight: properties) { buffer in
                var record = JSONObjectEncoder()
                record.key("group_type", &buffer)
                cut(type, &buffer)
                record.key("group_value", &buffer)
                cut(value, &buffer)
                record.key("group_properties", &buffer)
                var object = JSONObjectEncoder()
                var written = 0
                document.forEachMember(of: traits) { key, value in
                    guard written < AmplitudeDestination.maxGroupProperties else {
                        counts.add("group_property_dropped_over_limit")
                        return
                    }
                    object.key(document, node: key, &buffer)
                    counts.add("string_cut", TextLimit.appendValue(document, value, maxScalars: AmplitudeDestination.maxStringCharacters,
                                                                   to: &buffer))
                    written += 1
                }
                object.close(&buffer)
                record.close(&buffer)
                return written > 0
            }
        }
        return .records(1)
    }

    /// [segment] The group's type and value: the traits named by
    /// `group_type_trait` and `group_value_trait` when both are set and both
    /// traits are there (strings or numbers), else `[Segment] Group` and `groupId`.
    private func groupTypeAndValue(_ fields: EventFields) -> (type: [UInt8], value: [UInt8])? {
        let document = fields.document
        if let typeTrait = groupTypeTrait, let valueTrait = groupValueTrait, let traits = fields.traits,
           let type = MessageIdentity.id(document, document.member(typeTrait, of: traits)),
           let value = MessageIdentity.id(document, document.member(valueTrait, of: traits)) {
            return (MessageIdentity.text(document, type), MessageIdentity.text(document, value))
        }
        guard let id = MessageIdentity.id(document, document.member("groupId" as StaticString, of: 0)) else { return nil }
        return (AmplitudeDestination.defaultGroupType, MessageIdentity.text(document, id))
    }

    /// `{"TYPE":"VALUE"}`, each cut to 1024 characters.
    /// `{TYPE: VALUE}`; with `campaign`, the UTM parameters of its `context.campaign` beside
    /// it, as an event's user properties carry them (`appendUserProperties`).
    private mutating func appendGroup(_ type: [UInt8], _ value: [UInt8], campaign fields: EventFields? = nil, _ out: inout ByteBuffer) {
        var object = JSONObjectEncoder()
        object.key(bytes: type.prefix(TextLimit.prefixLength(type, maxScalars: AmplitudeDestination.maxStringCharacters)), &out)
        cut(value, &out)
        if let fields, fields.mapped.present & MappedContext.campaign != 0 {
            for (name, field) in MappedContext.utmNames {
                guard let node = fields.mapped.node(field) else { continue }
                object.key(name, &out)
                if TextLimit.appendString(fields.document, node, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) {
                    counts.add("string_cut")
                }
            }
        }
        object.close(&out)
    }

    private mutating func cut(_ text: [UInt8], _ out: inout ByteBuffer) {
        if TextLimit.appendCut(text, maxScalars: AmplitudeDestination.maxStringCharacters, to: &out) { counts.add("string_cut") }
    }

    /// [usermap] [segment] `previousId` (else `anonymousId`) → `user_id`, `userId` → `global_user_id`.
    private mutating func encodeAlias(_ fields: EventFields, side: inout SideRecords) -> ProfileOutcome {
        guard userMapping else { return .notTaken("user_mapping_off") }
        let document = fields.document
        guard let user = fields.userIdNode,
              let previous = aliasPreviousID(document, anonymousId: fields.anonymousIdNode) else {
            return .refused(Rejection(.invalidAlias, "an alias needs a userId and a previousId (or an anonymousId) to map to it"))
        }
        let minimum = minIDLength
        for id in [previous, user] where !fields.withID(id, { AmplitudeDestination.isUsableID($0, minIDLength: minimum) }) {
            let text = String(decoding: MessageIdentity.text(document, id), as: UTF8.self)
            return .refused(Rejection(.invalidAlias, "\"\(text)\" is not a user id Amplitude keeps (at least \(minIDLength) characters, not a placeholder)"))
        }
        if MessageIdentity.text(document, previous) == MessageIdentity.text(document, user) {
            return .refused(Rejection(.invalidAlias, "the alias maps a user id to itself"))
        }
        side.append(to: AmplitudeDestination.userMappingsOutput) { buffer in
            var record = JSONObjectEncoder()
            record.id("user_id", document, node: previous, &buffer)
            record.id("global_user_id", document, node: user, &buffer)
            record.close(&buffer)
            return true
        }
        return .records(0)
    }
}
