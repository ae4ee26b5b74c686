import SluiceJSON

/// The properties of Mixpanel's profile and group profile updates, and the
/// groups a device's later events carry. The bracketed citations are the
/// pages listed on `MixpanelProfiles.swift`.
extension MixpanelDestination {
    /// [segment] Segment's special traits and the reserved profile properties
    /// Mixpanel shows them as (docs.mixpanel.com/docs/data-structure/property-reference/reserved-properties
    /// "Reserved Profile Properties"; `createdAt` and `avatar` as RudderStack maps them).
    static let specialTraits: [(trait: [UInt8], property: [UInt8])] = [
        ("created", "$created"), ("createdAt", "$created"), ("email", "$email"), ("firstName", "$first_name"),
        ("lastName", "$last_name"), ("name", "$name"), ("username", "$username"), ("phone", "$phone"), ("avatar", "$avatar"),
    ].map { (Array($0.0.utf8), Array($0.1.utf8)) }

    /// Names that are the update's own or Mixpanel's to set ("$last_seen ... should not
    /// be set manually"; `$mp_first_event_time` is computed): left out of a profile's properties.
    static let reservedProfileProperties: [[UInt8]] = [
        "$distinct_id", "$token", "$group_key", "$group_id", "$last_seen", "$mp_first_event_time",
    ].map { Array($0.utf8) }

    /// [profiles] "Each User Profile can contain up to 2000 properties" (group profiles: "similar limits").
    static let maxProfileProperties = 2000

    /// [groups] "Up to 300 group keys may be assigned to an event": the ids a device's events carry, per key.
    static let maxGroupIDs = 300

    /// Appends an object of the traits whose names (as written) `select` takes:
    /// special traits renamed, reserved names left out, at most 2000, names and
    /// strings at any depth cut at 255 bytes, as events' properties are. Returns how many it wrote.
    mutating func appendProfileProperties(_ document: JSONDocument, _ traits: Int, to out: inout ByteBuffer,
                                          select: (Span<UInt8>) -> Bool) -> Int {
        var object = JSONObjectEncoder()
        var names: [[UInt8]] = []
        document.forEachMember(of: traits) { key, value in
            guard let written = document.withStringSpan(key, { raw -> [UInt8]? in
                guard select(raw) else { return nil }
                return MixpanelDestination.specialTraits.first { ByteSpans.equal(raw, $0.trait) }?.property ?? Array(copying: raw)
            }) ?? nil else { return }
            var name = written
            if MixpanelDestination.reservedProfileProperties.contains(name) {
                counts.add("profile_reserved_property_dropped")
                return
            }
            if name.count > MixpanelDestination.maxStringBytes {
                name = Array(name.prefix(TextLimit.prefixLength(name, maxBytes: MixpanelDestination.maxStringBytes)))
                counts.add("profile_property_name_cut")
            }
            if names.contains(name) {
                // `name` and `$name` both given: the first one written is kept.
                counts.add("profile_duplicate_property_dropped")
                return
            }
            if names.count >= MixpanelDestination.maxProfileProperties {
                counts.add("profile_property_dropped_over_limit")
                return
            }
            names.append(name)
            object.key(bytes: name, &out)
            let cuts = MixpanelPropertyValue.profile.append(document, value, to: &out)
            counts.add("profile_string_cut", cuts.strings)
            counts.add("profile_collection_cut", cuts.collections)
        }
        object.close(&out)
        return names.count
    }

    /// Remembers the groups a device joined, for its later events: each key's ids, the newest added last.
    mutating func rememberGroups(_ fields: EventFields, _ memberships: [(key: [UInt8], ids: [Int])]) {
        guard groupMemory.maxBytes > 0 else { return }
        let (document, anonymous, user) = (fields.document, fields.anonymousIdNode, fields.userIdNode)
        var pairs = groupMemory.value(document, anonymousId: anonymous, userId: user).map(DeviceMemory.Pairs.decode) ?? []
        for (key, ids) in memberships {
            var list = pairs.first(where: { $0.name == key }).map { MixpanelDestination.idTexts($0.json) } ?? []
            for id in ids {
                let text = MessageIdentity.text(fields.document, id)
                if !list.contains(text) { list.append(text) }
            }
            if list.count > MixpanelDestination.maxGroupIDs {
                counts.add("group_id_dropped_over_limit", list.count - MixpanelDestination.maxGroupIDs)
                list.removeFirst(list.count - MixpanelDestination.maxGroupIDs)
            }
            var json = ByteBuffer(capacity: 64)
            json.append(UInt8(ascii: "["))
            for (index, text) in list.enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                JSONString.appendQuoted(text, to: &json)
            }
            json.append(UInt8(ascii: "]"))
            if let index = pairs.firstIndex(where: { $0.name == key }) {
                pairs[index].json = json.array
            } else {
                pairs.append((key, json.array))
            }
        }
        let forgottenBefore = groupMemory.forgotten
        if !groupMemory.set(DeviceMemory.Pairs.encode(pairs), document, anonymousId: anonymous, userId: user) {
            counts.add("groups_forgotten")
        }
        counts.add("groups_forgotten", groupMemory.forgotten - forgottenBefore)
    }

    /// The texts of a remembered list of ids (a JSON array, read as the member of an object).
    private static func idTexts(_ json: [UInt8]) -> [[UInt8]] {
        guard let document = try? JSONDocument.parse(Array(#"{"ids":"#.utf8) + json + [UInt8(ascii: "}")]),
              let list = document.member("ids" as StaticString, of: 0) else { return [] }
        return document.elements(of: list).compactMap { node in document.withString(node) { Array($0) } }
    }

    /// [groups] The groups the device joined, on one of its events: `KEY: [ids]`
    /// for each key the event's own properties do not set (theirs wins, counted
    /// `group_property_overridden`), within the property limit. Returns how many it wrote.
    @inline(never)
    mutating func appendRememberedGroups(_ fields: EventFields, count: Int, _ properties: inout JSONObjectEncoder,
                                         _ out: inout ByteBuffer) -> Int {
        guard let remembered = groupMemory.value(fields.document, anonymousId: fields.anonymousIdNode, userId: fields.userIdNode)
        else { return 0 }
        let document = fields.document
        var written = 0
        DeviceMemory.Pairs.forEach(remembered) { key, json in
            if let own = fields.properties, document.member(Array(key), of: own) != nil {
                counts.add("group_property_overridden")
                return
            }
            if count + written >= MixpanelDestination.maxProperties {
                counts.add("property_dropped_over_limit")
                return
            }
            properties.key(bytes: key, &out)
            out.append(contentsOf: json)
            written += 1
        }
        if written > 0 { groupsAddedToEvents += 1 }
        return written
    }
}
