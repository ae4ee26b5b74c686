import SluiceJSON

/// Mixpanel's profiles, groups and identities: `identify`, `group` and `alias`
/// messages (`MixpanelIdentitySettings` for the keys). Profile updates go to
/// `/engage` and group profile updates to `/groups`, other endpoints than the
/// events', so each is a side output of its own (`mixpanel.profiles`,
/// `mixpanel.groups`); `$merge` and `$create_alias` are events of `/import`,
/// written with the events. Each rule cites its page:
/// - [engage]: docs.mixpanel.com/reference/profile-set, /reference/profile-set-property-once,
///   /reference/profile-union ("Update Multiple Profiles": a JSON list of update objects,
///   each with `$token`, `$distinct_id` and one operation)
/// - [profiles]: docs.mixpanel.com/docs/data-structure/user-profiles ("Each User Profile can
///   contain up to 2000 properties. User property names can be at most 255 characters";
///   "We recommend calling this API with batches of 200 user profiles")
/// - [groups]: docs.mixpanel.com/reference/group-set-property; docs/data-structure/group-analytics/
///   group-analytics-implementation ("The group key(s) and their value should be present in every
///   event you want associated with the group"; "Add Group Key to User's Profile ... set the value
///   of the user property as a list of string values"; "Up to 300 group keys may be assigned to an event")
/// - [original]: docs.mixpanel.com/docs/tracking-methods/id-management/identifying-users-original
///   (`$create_alias`: "link two non-anonymous Distinct IDs"; `$merge`: "merge any 2 identifiers
///   together ... it can only be processed when sent via the /import API")
/// - [alias]: docs.mixpanel.com/reference/identity-create-alias ("only useful for projects using the
///   Original ID Merge system ... it has no functionality in the Simplified ID Merge system")
/// - [segment]: segment.com/docs/connections/destinations/catalog/mixpanel/ (special traits; "Group
///   Identifier Traits"), and RudderStack's mapping (rudder-transformer src/v0/destinations/mp/transform.js:
///   identify with both ids → `$merge` in original mode, group → `/groups` and `$set` of the key on the user,
///   alias → `$create_alias` with `distinct_id` the previous id and `alias` the user id)
///
/// - `identify` → a `$set` update of the `$distinct_id`'s profile (userId, else
///   anonymousId, as events) with the traits (`set_once` ones in a `$set_once`
///   update), `$ip` from `context.ip`; Segment's special traits become
///   Mixpanel's reserved profile properties (`email` → `$email`, `firstName` →
///   `$first_name`, `lastName` → `$last_name`, `name` → `$name`, `username` →
///   `$username`, `phone` → `$phone`, `created`/`createdAt` → `$created`,
///   `avatar` → `$avatar`). With `identity: original` and both ids, also a
///   `$merge` of `[userId, anonymousId]`.
/// - `group` → for each of `group_keys` the message has (a trait, or
///   `groupId`), a group profile update (`$group_key`, `$group_id`, `$set` of
///   the traits) and a `$union` of the id into the key on the user's profile;
///   the device's later events carry `KEY: [ids]` (`device_memory`, see `DeviceMemory`).
/// - `alias` → with `identity: original`, a `$create_alias` event; with
///   `simplified`, nothing is needed (counted `alias_not_needed`).
extension MixpanelDestination {
    /// The side outputs, in `type.sideOutputs`' order.
    static let profilesOutput = 0
    static let groupsOutput = 1

    static let sideOutputKinds: [SideOutputKind] = {
        // [profiles] batches of 200 profiles per request; 2,000,000 bytes as for `/import`.
        var rotation = RotationPolicy()
        rotation.maxEvents = 200
        rotation.maxBytes = 2_000_000
        return [SideOutputKind(name: "profiles", defaultRotation: rotation), SideOutputKind(name: "groups", defaultRotation: rotation)]
    }()

    public var profileTypes: MessageTypes { MessageTypes(.identify, .group, .alias) }

    public mutating func encodeProfile(_ event: Event, context: inout EncodingContext, into out: inout ByteBuffer,
                                       side: inout SideRecords) -> ProfileOutcome {
        if event.type == .alias && identity.identity == .simplified { return .notTaken("alias_not_needed") }
        guard let token = identity.token else { return .notTaken("no_project_token") }
        let fields = context.fields(of: event)
        switch event.type {
        case .alias: return encodeAlias(fields, token: token, context: &context, into: &out)
        case .group: return encodeGroup(fields, token: token, side: &side)
        default: return encodeIdentify(fields, token: token, context: &context, into: &out, side: &side)
        }
    }

    /// The `$distinct_id` of a profile update: as an event's `distinct_id`, or why there is none.
    private func profileID(_ fields: EventFields) -> Result<Int, Rejection> {
        guard let distinct = fields.userIdNode ?? fields.anonymousIdNode else {
            return .failure(Rejection(.invalidDistinctID, "no userId or anonymousId for $distinct_id"))
        }
        if fields.withID(distinct, MixpanelDestination.isPlaceholder) {
            let text = String(decoding: MessageIdentity.text(fields.document, distinct), as: UTF8.self)
            return .failure(Rejection(.invalidDistinctID, "$distinct_id would be \"\(text)\", a placeholder Mixpanel rejects"))
        }
        return .success(distinct)
    }

    /// `{"$token":…,"$distinct_id":…` and `$ip` when the message has one, for a profile update.
    private func updateHead(_ fields: EventFields, _ token: [UInt8], _ distinct: Int, _ record: inout JSONObjectEncoder,
                            _ out: inout ByteBuffer) {
        record.string("$token", bytes: token, &out)
        record.key("$distinct_id", &out)
        MessageIdentity.appendQuoted(fields.document, distinct, to: &out)
        if let ip = fields.node(.ip) { record.raw("$ip", fields.document, node: ip, &out) }
    }

    private mutating func encodeIdentify(_ fields: EventFields, token: [UInt8], context: inout EncodingContext,
                                         into out: inout ByteBuffer, side: inout SideRecords) -> ProfileOutcome {
        let distinct: Int
        switch profileID(fields) {
        case let .success(node): distinct = node
        case let .failure(rejection): return .refused(rejection)
        }
        let document = fields.document
        if let traits = fields.identifyTraits {
            let setOnce = identity.setOnce
            for (operation, once) in [("$set" as StaticString, false), ("$set_once", true)] where !once || !setOnce.isEmpty {
                side.append(to: MixpanelDestination.profilesOutput) { buffer in
                    var record = JSONObjectEncoder()
                    updateHead(fields, token, distinct, &record, &buffer)
                    record.key(operation, &buffer)
                    let written = appendProfileProperties(document, traits, to: &buffer) { name in
                        setOnce.contains { ByteSpans.equal(name, $0) } == once
                    }
                    record.close(&buffer)
                    return written > 0
                }
            }
        }
        var records = 0
        // [original] (as RudderStack): the anonymous device and the user become one.
        if identity.identity == .original, let user = fields.userIdNode, let device = fields.anonymousIdNode,
           !fields.withID(device, MixpanelDestination.isPlaceholder), !fields.withID(user, MixpanelDestination.isPlaceholder),
           MessageIdentity.text(document, user) != MessageIdentity.text(document, device) {
            if context.timeRefusal(.mixpanel, fields.time) != nil {
                counts.add("merge_left_out_time_out_of_range")
            } else {
                writeIdentityEvent("$merge", fields, token: token, context: &context, into: &out) { properties, out in
                    properties.key("$distinct_ids", &out)
                    out.append(UInt8(ascii: "["))
                    MessageIdentity.appendQuoted(document, user, to: &out)
                    out.append(UInt8(ascii: ","))
                    MessageIdentity.appendQuoted(document, device, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
                records = 1
            }
        }
        return records + side.total > 0 ? .records(records) : .notTaken("no_traits")
    }

    private mutating func encodeAlias(_ fields: EventFields, token: [UInt8], context: inout EncodingContext,
                                      into out: inout ByteBuffer) -> ProfileOutcome {
        let document = fields.document
        guard let user = fields.userIdNode else { return .refused(Rejection(.invalidAlias, "an alias needs the userId it maps to")) }
        guard let previous = aliasPreviousID(document, anonymousId: fields.anonymousIdNode) else {
            return .refused(Rejection(.invalidAlias, "an alias needs a previousId (or an anonymousId) to map to its userId"))
        }
        let (previousText, userText) = (MessageIdentity.text(document, previous), MessageIdentity.text(document, user))
        if previousText == userText {
            return .refused(Rejection(.invalidAlias, "the alias maps \"\(String(decoding: userText, as: UTF8.self))\" to itself"))
        }
        for id in [previous, user] where fields.withID(id, MixpanelDestination.isPlaceholder) {
            let text = String(decoding: MessageIdentity.text(document, id), as: UTF8.self)
            return .refused(Rejection(.invalidDistinctID, "the alias holds \"\(text)\", a placeholder Mixpanel rejects"))
        }
        if let refusal = context.timeRefusal(.mixpanel, fields.time) { return .refused(refusal) }
        // [alias] `distinct_id` the id known so far, `alias` the new one.
        writeIdentityEvent("$create_alias", fields, token: token, context: &context, into: &out) { properties, out in
            properties.key("distinct_id", &out)
            MessageIdentity.appendQuoted(document, previous, to: &out)
            properties.key("alias", &out)
            MessageIdentity.appendQuoted(document, user, to: &out)
        }
        return .records(1)
    }

    /// An `/import` event of the ID Merge API: its name, `time`, `$insert_id`, what `body` adds, and `token`.
    private mutating func writeIdentityEvent(_ name: StaticString, _ fields: EventFields, token: [UInt8], context: inout EncodingContext,
                                             into out: inout ByteBuffer,
                                             _ body: (inout JSONObjectEncoder, inout ByteBuffer) -> Void) {
        let nameBytes = ByteSpans.array(name)
        var record = JSONObjectEncoder()
        record.string("event", bytes: nameBytes, &out)
        record.key("properties", &out)
        var properties = JSONObjectEncoder()
        properties.integer("time", fields.time.milliseconds, &out)
        properties.key("$insert_id", &out)
        context.appendInsertID(messageId: fields.messageIdNode, name: nameBytes, document: fields.document, to: &out)
        body(&properties, &out)
        properties.string("token", bytes: token, &out)
        properties.close(&out)
        record.close(&out)
        out.append(UInt8(ascii: "\n"))
    }

    private mutating func encodeGroup(_ fields: EventFields, token: [UInt8], side: inout SideRecords) -> ProfileOutcome {
        guard !identity.groupKeys.isEmpty else { return .notTaken("no_group_key") }
        let distinct: Int
        switch profileID(fields) {
        case let .success(node): distinct = node
        case let .failure(rejection): return .refused(rejection)
        }
        let document = fields.document
        let memberships = groupMemberships(fields)
        guard !memberships.isEmpty else { return .notTaken("no_group_key") }
        for (key, ids) in memberships {
            for id in ids {
                // [groups] "at least one (1) profile property must be set": a group without traits gets no profile update.
                guard let traits = fields.traits else { continue }
                side.append(to: MixpanelDestination.groupsOutput) { buffer in
                    var record = JSONObjectEncoder()
                    record.string("$token", bytes: token, &buffer)
                    record.string("$group_key", bytes: key, &buffer)
                    record.key("$group_id", &buffer)
                    MessageIdentity.appendQuoted(document, id, to: &buffer)
                    record.key("$set", &buffer)
                    let written = appendProfileProperties(document, traits, to: &buffer) { _ in true }
                    record.close(&buffer)
                    return written > 0
                }
            }
        }
        // [groups] the user belongs to the group: the key on its profile, a list of ids.
        side.append(to: MixpanelDestination.profilesOutput) { buffer in
            var record = JSONObjectEncoder()
            updateHead(fields, token, distinct, &record, &buffer)
            record.key("$union", &buffer)
            var union = JSONObjectEncoder()
            for (key, ids) in memberships {
                union.key(bytes: key, &buffer)
                MixpanelDestination.appendIDList(document, ids, to: &buffer)
            }
            union.close(&buffer)
            record.close(&buffer)
            return true
        }
        rememberGroups(fields, memberships)
        return .records(0)
    }

    /// Each configured group key the message has, with its ids: a trait's
    /// string or number, or each one of an array of them (`groupId`: the message's own).
    private func groupMemberships(_ fields: EventFields) -> [(key: [UInt8], ids: [Int])] {
        let document = fields.document
        var memberships: [(key: [UInt8], ids: [Int])] = []
        for key in identity.groupKeys {
            let node: Int?
            if key.elementsEqual("groupId".utf8) {
                node = document.member("groupId" as StaticString, of: 0)
            } else {
                node = fields.traits.flatMap { traits in document.member(key, of: traits) }
            }
            guard let node else { continue }
            var ids: [Int] = []
            if document.kind(node) == .array {
                ids = document.elements(of: node).compactMap { MessageIdentity.id(document, $0) }
            } else if let id = MessageIdentity.id(document, node) {
                ids = [id]
            }
            if !ids.isEmpty { memberships.append((key, ids)) }
        }
        return memberships
    }

    /// `["a","b"]`: ids as strings (a number's text quoted).
    static func appendIDList(_ document: JSONDocument, _ ids: [Int], to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "["))
        for (index, id) in ids.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            MessageIdentity.appendQuoted(document, id, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
