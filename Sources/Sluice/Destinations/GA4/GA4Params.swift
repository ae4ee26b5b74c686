import SluiceJSON

/// A GA4 event's `params` and a request's `user_properties`: the limits on
/// their count, names and values, and what happens to values GA4 would drop.
/// The bracketed citations are the pages listed on `GA4Destination`.
extension GA4Destination {
    /// - Parameters:
    ///   - session: the session the event item belongs to (the event's own, or for a
    ///     split timed event's start its `started_session`), `time` the item's time.
    mutating func appendParams<Out: ByteSink>(_ fields: EventFields, event: Event, extra: (key: StaticString, limit: Int)?,
                               includeDuration: Bool, session: EventFields.Session?, at time: EventTime, _ out: inout Out) {
        let document = fields.document
        var params = JSONObjectEncoder()
        written.removeAll(keepingCapacity: true)
        // [mp-send] "Recommended parameters for reports": without session_id and
        // engagement_time_msec the event is missing from session and engagement reports.
        // An event is never filed in a session that began after it (an upstream
        // `context.session` that says so is not believed: counted, left out).
        if let startMs = session?.startMs, startMs <= time.milliseconds {
            params.key("session_id", &out)
            markLastKey(10, out)
            appendInteger(startMs / 1000, to: &out)
        } else {
            counts.add(session?.startMs == nil ? "session_id_missing" : "session_after_event")
        }
        params.key("engagement_time_msec", &out)
        markLastKey(20, out)
        appendInteger(max(1, session?.engagementMs ?? 1), to: &out)
        if let extra {
            // `screen_name` / `page_title`: the name `UnnamedNames` finds; none at all rather than an empty one.
            let fallback = event.type == .page ? unnamed.page : unnamed.screen
            let defaulted = UnnamedNames.withName(event, fields, fallback: fallback) { text, source in
                if !text.isEmpty {
                    params.key(extra.key, &out)
                    markLastKey(extra.key.utf8CodeUnitCount, out)
                    if TextLimit.appendCut(text, maxScalars: extra.limit, to: &out) { counts.add("param_value_cut") }
                }
                return source == .fallback
            }
            if defaulted { counts.add(UnnamedNames.counter(event.type)) }
        }
        if event.type == .group, let id = MessageIdentity.id(document, document.member("groupId" as StaticString, of: 0)) {
            params.key("group_id", &out)
            markLastKey(8, out)
            if TextLimit.appendCut(MessageIdentity.text(document, id), maxScalars: GA4Destination.maxParamValue, to: &out) {
                counts.add("param_value_cut")
            }
        }
        if (fields.mapped.present | fields.mapped.invalid) & GA4Destination.pageParams != 0 { appendContextParams(fields, &params, &out) }
        let ecommerce = ecommerceEvent != nil
        if ecommerce { appendEcommerceParams(fields, &params, &out) }
        if let properties = fields.properties {
            document.forEachMember(of: properties) { key, value in
                document.withStringSpan(key) { keyBytes in
                    if !includeDuration && ByteSpans.equal(keyBytes, "duration_ms") { return }
                    if ecommerce && ecommerceConsumes(keyBytes) { return }
                    appendParam(document, keyBytes, value, parent: Span<UInt8>(), hasParent: false, &params, &out)
                }
            }
        }
        if ecommerce { appendItems(fields, &params, &out) }
        params.close(&out)
    }

    private mutating func appendParam<Out: ByteSink>(_ document: JSONDocument, _ rawKey: Span<UInt8>, _ value: Int,
                                      parent: Span<UInt8>, hasParent: Bool, _ params: inout JSONObjectEncoder, _ out: inout Out) {
        let kind = document.kind(value)
        switch kind {
        case .null:
            // [mp-send]: null, object and array values make GA4 drop the event without an error.
            counts.add("null_param_dropped")
            return
        case .array:
            counts.add("array_param_dropped")
            return
        case .object:
            guard !hasParent else {
                counts.add("nested_param_dropped")
                return
            }
            counts.add("object_param_flattened")
            document.forEachMember(of: value) { childKey, childValue in
                document.withStringSpan(childKey) { child in
                    appendParam(document, child, childValue, parent: rawKey, hasParent: true, &params, &out)
                }
            }
            return
        default:
            break
        }
        // The name: `parent_child` for a flattened member; normalized like event names when invalid.
        key.removeAll(keepingCapacity: true)
        if hasParent {
            key.append(span: parent)
            key.append(UInt8(ascii: "_"))
        }
        key.append(span: rawKey)
        let changed = fixKey(maxLength: GA4Names.maxNameLength, kind: .parameter)
        if isWritten(key, in: out) {
            counts.add("duplicate_param_dropped")
            return
        }
        if written.count >= GA4Destination.maxParams {
            counts.add("param_dropped_over_limit")
            return
        }
        if changed { counts.add("param_name_changed") }
        params.key(bytes: key, &out)
        markLastKey(key.count, out)
        switch kind {
        case .string:
            var limit = GA4Destination.maxParamValue
            for (special, longer) in GA4Destination.longerParamValues
            where ByteSpans.equal(key.span, special) {
                limit = longer
            }
            if TextLimit.appendString(document, value, maxScalars: limit, to: &out) { counts.add("param_value_cut") }
        case .true, .false:
            // [mp-send]: parameter values are strings or numbers.
            JSONString.appendQuoted(kind == .true ? "true" : "false", to: &out)
            counts.add("bool_param_stringified")
        default:
            document.appendRaw(value, to: &out)
        }
    }

    // MARK: - User properties

    /// [mp-user] `user_properties: {"name": {"value": ...}}` from `context.traits`
    /// (or an identify's `traits`), then what the device's identify messages set
    /// (`remembered`, see `GA4UserMemory.swift`; a name both have is the event's):
    /// at most 25, names 24 characters, values 36, strings or numbers.
    mutating func appendUserProperties<Out: ByteSink>(_ document: JSONDocument, _ traits: Int?, remembered: [UInt8]? = nil,
                                                      _ out: inout Out) {
        var object = JSONObjectEncoder()
        written.removeAll(keepingCapacity: true)
        if let traits { appendTraits(document, traits, &object, &out) }
        if let remembered { appendRemembered(remembered, &object, &out) }
        object.close(&out)
    }

    private mutating func appendTraits<Out: ByteSink>(_ document: JSONDocument, _ traits: Int, _ object: inout JSONObjectEncoder,
                                                      _ out: inout Out) {
        document.forEachMember(of: traits) { key, value in
            let kind = document.kind(value)
            guard kind == .string || kind == .number || kind == .true || kind == .false else {
                counts.add("user_property_dropped")
                return
            }
            self.key.removeAll(keepingCapacity: true)
            document.withString(key) { self.key.append(contentsOf: $0) }
            let changed = fixKey(maxLength: GA4Names.maxUserPropertyNameLength, kind: .userProperty)
            if isWritten(self.key, in: out) {
                counts.add("duplicate_user_property_dropped")
                return
            }
            if written.count >= GA4Destination.maxUserProperties {
                counts.add("user_property_dropped_over_limit")
                return
            }
            if changed { counts.add("user_property_name_changed") }
            object.key(bytes: self.key, &out)
            markLastKey(self.key.count, out)
            var wrapper = JSONObjectEncoder()
            wrapper.key("value", &out)
            switch kind {
            case .string:
                if TextLimit.appendString(document, value, maxScalars: GA4Destination.maxUserPropertyValue, to: &out) {
                    counts.add("user_property_value_cut")
                }
            case .true, .false:
                JSONString.appendQuoted(kind == .true ? "true" : "false", to: &out)
                counts.add("bool_user_property_stringified")
            default:
                document.appendRaw(value, to: &out)
            }
            wrapper.close(&out)
        }
    }

    // MARK: - Names written

    /// Replaces `key` by its valid form when it is not valid; returns whether it changed.
    /// Parameter names are remembered in `paramNames`, user property names in `userPropertyNames`.
    mutating func fixKey(maxLength: Int, kind: GA4Names.Kind) -> Bool {
        if GA4Names.isValid(key, maxLength: maxLength, kind: kind) { return false }
        let fixed: [UInt8]?
        do {
            let name = key
            let make = { GA4NameCache.Entry(fixed: GA4Names.normalize(name, maxLength: maxLength, kind: kind).name, changes: []) }
            if case .userProperty = kind {
                fixed = userPropertyNames.entry(for: name, make).fixed
            } else {
                fixed = paramNames.entry(for: name, make).fixed
            }
        }
        // Copied into `key`'s own buffer: holding the cache's array would make the next key's first write copy it.
        if let fixed {
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: fixed)
        }
        return true
    }

    /// Remembers the key just written (`"name":` at the end of `out`).
    @inline(__always)
    mutating func markLastKey<Out: ByteSink>(_ count: Int, _ out: Out) {
        written.append((out.count - 2 - count, count))
    }

    /// Whether a key equal to `candidate` was already written into the current object.
    func isWritten<Name: Collection, Out: ByteSink>(_ candidate: Name, in out: Out) -> Bool where Name.Element == UInt8 {
        let count = candidate.count
        return out.withBytes { bytes in
            for entry in written where entry.count == count {
                if bytes[entry.start..<(entry.start + count)].elementsEqual(candidate) { return true }
            }
            return false
        }
    }
}
