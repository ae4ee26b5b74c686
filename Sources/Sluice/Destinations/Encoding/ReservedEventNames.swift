import SluiceJSON

/// Event names a provider keeps for its own events, which an app's event must
/// not arrive under (GA4's list and prefixes are `GA4Names`):
///
/// - **Mixpanel**: names beginning with `$` or `mp_` are Mixpanel's own
///   (`$identify`, `$create_alias` and `$merge` drive Original ID Merge: a `$merge`
///   with `$distinct_ids` would merge two users; `$mp_web_page_view`, `$ae_session`,
///   `mp_page_view` are its SDKs' automatic events). Mixpanel's SDK docs: "avoid
///   names containing `$` or `mp`" (docs.mixpanel.com/docs/tracking-methods/sdks/javascript;
///   docs/tracking-methods/id-management/identifying-users-original for the three).
/// - **Amplitude**: `[Amplitude] …` (`[Amplitude] Start Session`, `[Amplitude] End
///   Session`, `[Amplitude] Revenue`, `[Amplitude] Revenue (Verified)`, `[Amplitude]
///   Merged User`, ...) and `$…` types: `$identify` and `$groupidentify` set user and
///   group properties (amplitude.com/docs/apis/analytics/http-v2, "event_type").
///   Amplitude Experiment's `$exposure` and `$assignment`, which its docs have
///   servers send through the same API, pass.
///
/// With `names: normalize` (the default) such a name gets `app_` in front
/// (`$merge` → `app_$merge`, `[Amplitude] Revenue` → `app_[Amplitude] Revenue`),
/// as GA4's reserved names do, counted `reserved_name_renamed`; with `names:
/// reject` the event is refused (`reserved_event_name`).
struct ReservedEventNames: Sendable {
    enum Mode: String, Sendable { case normalize, reject }
    enum Provider: Sendable { case mixpanel, amplitude }

    let provider: Provider
    let mode: Mode

    static let renamePrefix: [UInt8] = Array("app_".utf8)
    private static let amplitudePrefix: [UInt8] = Array("[amplitude]".utf8)
    private static let amplitudeAllowed: [[UInt8]] = ["$exposure", "$assignment"].map { Array($0.utf8) }

    init(provider: Provider, mode: Mode = .normalize) {
        self.provider = provider
        self.mode = mode
    }

    /// Reads the destination's `names:` (`normalize` or `reject`).
    init(provider: Provider, options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) {
        var mode = Mode.normalize
        if let node = options["names"] {
            if let text = node.scalar?.text, let value = Mode(rawValue: text) {
                mode = value
            } else {
                reader.error(node, "destinations.\(destination).names must be one of: normalize, reject")
            }
        }
        self.init(provider: provider, mode: mode)
    }

    /// Whether `name` is one the provider keeps for itself; a byte or two for most names.
    @inline(__always)
    func isReserved(_ name: Span<UInt8>) -> Bool {
        guard !name.isEmpty else { return false }
        let first = name[0]
        switch provider {
        case .mixpanel:
            return first == UInt8(ascii: "$")
                || (first == UInt8(ascii: "m") && name.count >= 3 && name[1] == UInt8(ascii: "p") && name[2] == UInt8(ascii: "_"))
        case .amplitude:
            if first == UInt8(ascii: "[") {
                return name.count >= ReservedEventNames.amplitudePrefix.count
                    && ByteSpans.equalFoldingASCII(ReservedEventNames.amplitudePrefix,
                                                   name.extracting(0..<ReservedEventNames.amplitudePrefix.count))
            }
            guard first == UInt8(ascii: "$") else { return false }
            return !ReservedEventNames.amplitudeAllowed.contains { ByteSpans.equal($0.span, name) }
        }
    }

    /// Renames a reserved `name` in place (counted `reserved_name_renamed`) or, with
    /// `names: reject`, returns the refusal; nil and nothing done for any other name.
    @inline(__always)
    func apply(_ name: inout [UInt8], provider label: StaticString, counts: inout ChangeCounts) -> Rejection? {
        guard isReserved(name.span) else { return nil }
        return rename(&name, provider: label, counts: &counts)
    }

    @inline(never)
    private func rename(_ name: inout [UInt8], provider label: StaticString, counts: inout ChangeCounts) -> Rejection? {
        let text = String(decoding: name, as: UTF8.self)
        if mode == .reject {
            return Rejection(.reservedEventName, "\"\(text)\" is an event name \(label) keeps for its own events; " +
                             "with names: normalize it would be sent as \"app_\(text)\"")
        }
        name.insert(contentsOf: ReservedEventNames.renamePrefix, at: 0)
        counts.add("reserved_name_renamed")
        return nil
    }
}

extension ReservedEventNames {
    /// What `validate` says of a planned track that would be renamed or refused (`lint`).
    func lint(_ message: PlannedMessage, provider label: String) -> [LintFinding] {
        guard message.type == .track else { return [] }
        let name = message.deliveredName
        guard Array(name.utf8).withSpan({ isReserved($0) }) else { return [] }
        let subject = message.isRenamed ? "event '\(message.name)', renamed to '\(name)'," : "event '\(name)'"
        if mode == .reject {
            return [LintFinding(.error, "\(subject) is named like \(label)'s own events; with `names: reject` it would be refused (reserved_event_name)")]
        }
        return [LintFinding(.warning, "\(subject) is named like \(label)'s own events and would be sent as 'app_\(name)'; add `rename:` to the destination to choose the name")]
    }
}

extension RejectReason {
    /// Mixpanel, Amplitude with `names: reject`: the event name is one the provider keeps for its own events.
    static let reservedEventName = RejectReason("reserved_event_name")
}
