import SluiceJSON

/// What the `session` stage reads from a message: who the device and the user
/// are, whether it starts a session, and the settings, traits and sign-outs it
/// carries into the device's state.
extension SessionTracking {
    private static let action = Array("action".utf8)
    private static let start = Array("start".utf8)
    private static let settingsField = Array("settings".utf8)
    private static let traitsField = Array("traits".utf8)

    /// The deepest a `settings` object may nest to be attached: the event, its
    /// `context` and `context.session` hold it, and the event must still parse.
    static let settingsDepthLimit = JSONDocument.maxDepth - 3
    /// The deepest a trait's value may nest: one level more holds it (`context.session.traits`).
    static let traitDepthLimit = JSONDocument.maxDepth - 4

    private static let userHashSeed: UInt64 = 0x1319_8a2e_0370_7344

    /// The device key's two hashes (`DeviceKey`: `anonymousId`, else `userId`; decoding guarantees one is an id).
    static func deviceKey(_ document: JSONDocument) -> (a: UInt64, b: UInt64) {
        let key = DeviceKey.of(document)
        return (key.a, key.b)
    }

    /// The hash of the message's `userId` (never 0), or 0 when it has none (absent, or no id: null, "", blank).
    static func userHash(_ document: JSONDocument) -> UInt64 {
        guard let node = MessageIdentity.member(document, MessageIdentity.userID) else { return 0 }
        let hash = MessageIdentity.withText(document, node) { StableHash.hash($0, seed: userHashSeed) }
        return hash == 0 ? 1 : hash
    }

    /// `deviceKey` and `userHash` of an event lent whole: a stage's event arrives in
    /// memory, and a document loaded out of it for a call is retained for the call.
    static func deviceKey(of event: borrowing Event) -> (a: UInt64, b: UInt64) { deviceKey(event.document) }
    static func userHash(of event: borrowing Event) -> UInt64 { userHash(event.document) }

    /// Whether a `session` message says `action: start`.
    static func isStart(_ document: JSONDocument) -> Bool {
        guard let node = document.member(action) else { return false }
        return document.withString(node) { $0.elementsEqual(start) } ?? false
    }

    /// Takes what an in-order message says about the device into its record:
    /// settings from a `session` message, traits from an `identify`, a sign-out.
    mutating func applyState(of event: Event, to record: inout DeviceRecord) {
        let document = event.document
        switch event.type {
        case .session where settings.attachSettings:
            guard let node = document.member(Self.settingsField),
                  document.kind(node) == .object
            else { return }
            var text: [UInt8] = []
            document.write(node: node, to: &text)
            if JSONNesting.depth(of: text) > Self.settingsDepthLimit {
                // Too deep to attach without making events no parser with the same limit reads:
                // these settings replace the old ones, so the device has none now.
                stats.tooDeep += 1
                settingsPool.release(record.settings)
                record.settings = 0
                return
            }
            let id = settingsPool.intern(text)
            settingsPool.release(record.settings)
            record.settings = id
        case .identify where !traitNames.isEmpty:
            guard let node = document.member(Self.traitsField),
                  document.kind(node) == .object
            else { return }
            mergeTraits(document, node, into: &record)
        case .track where !signOutEvents.isEmpty:
            if signOutEvents.contains(event.name) { record.signedOut = true }
        default:
            break
        }
    }

    /// Merges the allowlisted members of an `identify`'s `traits` into the device's.
    private mutating func mergeTraits(_ document: JSONDocument, _ traits: Int, into record: inout DeviceRecord) {
        var values = [[UInt8]?](repeating: nil, count: traitNames.count)
        /// Traits this message set to a value too deep to attach: the device no longer has one.
        var cleared = [Bool](repeating: false, count: traitNames.count)
        var changed = false
        for (index, name) in traitNames.enumerated() {
            guard let node = document.member(name, of: traits) else { continue }
            var text: [UInt8] = []
            document.write(node: node, to: &text)
            changed = true
            if JSONNesting.depth(of: text) > Self.traitDepthLimit {
                stats.tooDeep += 1
                cleared[index] = true
                continue
            }
            values[index] = text
        }
        guard changed else { return }
        if record.traits != 0, let known = try? JSONDocument.parse(traitsPool[record.traits]) {
            for (index, name) in traitNames.enumerated() where values[index] == nil && !cleared[index] {
                guard let node = known.member(name) else { continue }
                values[index] = known.rawBytes(node)
            }
        }
        var text: [UInt8] = [UInt8(ascii: "{")]
        for (index, name) in traitNames.enumerated() {
            guard let value = values[index] else { continue }
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            JSONString.appendQuoted(name, to: &text)
            text.append(UInt8(ascii: ":"))
            text.append(contentsOf: value)
        }
        text.append(UInt8(ascii: "}"))
        let id = text.count > 2 ? traitsPool.intern(text) : 0
        traitsPool.release(record.traits)
        record.traits = id
    }
}
