import SluiceJSON

/// A file set a destination writes besides its events, for another endpoint of
/// its provider: Mixpanel's user profiles (`/engage`) and group profiles
/// (`/groups`), Amplitude's group identifications (`/groupidentify`) and user
/// mappings (`/usermap`). A destination type declares its kinds; each is a
/// file set of its own under the destination's folder (`{dest}/KIND/...`),
/// routed by the destination's rules, rotated at its endpoint's limits, and
/// counted apart in `--stats` and `--metrics` (`mixpanel.profiles`).
public struct SideOutputKind: Sendable {
    /// `profiles`, `groups`, `user_mappings`: the key under `outputs:` and the `.KIND` of its name.
    public let name: String
    /// One file is one request of the endpoint (`rotate:` under `outputs.KIND` changes it).
    public let defaultRotation: RotationPolicy
    /// A limit of the endpoint on something a record holds several of, per
    /// request (Amplitude: group properties), which `rotate:` cannot express:
    /// a record that would take a file past it starts the next file.
    public let perFileLimit: (what: String, max: Int)?

    public init(name: String, defaultRotation: RotationPolicy, perFileLimit: (what: String, max: Int)? = nil) {
        self.name = name
        self.defaultRotation = defaultRotation
        self.perFileLimit = perFileLimit
    }

    /// Under the destination's folder, apart from its events (which a glob of
    /// `{dest}/*/*.ndjson.gz` picks up alone): `{dest}/KIND/{date}/{dest}-KIND-{hour}-{seq}.ndjson.gz`,
    /// with `{shard}-` before `{hour}` when the destination's own path has `{shard}`
    /// (so shards that share `--out` never take turns for a name).
    public func defaultPath(sharded: Bool) -> String {
        "{dest}/\(name)/{date}/{dest}-\(name)-\(sharded ? "{shard}-" : ""){hour}-{seq}.ndjson.gz"
    }

    /// The name an output of this kind goes by in `--stats`, `--metrics` and `tests:` (`mixpanel.profiles`).
    public static func outputName(destination: String, kind: String) -> String { destination + "." + kind }
}

/// The records one identify, group or alias message makes for a
/// destination's side outputs: a buffer per side output, in the order of its
/// type's `sideOutputs`, handed to their files only when the message is taken
/// (a refusal leaves nothing behind).
public struct SideRecords {
    private(set) var buffers: [ByteBuffer]
    /// Records per side output.
    private(set) var counts: [Int]
    /// Per side output: what each record holds of its kind's `perFileLimit`.
    private(set) var weights: [Int]

    init(count: Int) {
        buffers = (0..<count).map { _ in ByteBuffer(capacity: 256) }
        counts = Array(repeating: 0, count: count)
        weights = Array(repeating: 0, count: count)
    }

    /// Forgets the previous message's records (keeping the buffers).
    mutating func reset() {
        for index in buffers.indices where counts[index] > 0 || !buffers[index].isEmpty {
            buffers[index].removeAll()
            counts[index] = 0
            weights[index] = 0
        }
    }

    /// Appends one record to side output `index`: what `write` appends (one
    /// JSON object), then its newline, unless `write` returns false (then what
    /// it wrote is taken back). `weight`: what it holds of the kind's `perFileLimit`.
    @discardableResult
    public mutating func append(to index: Int, weight: Int = 0, _ write: (inout ByteBuffer) -> Bool) -> Bool {
        let start = buffers[index].count
        guard write(&buffers[index]) else {
            if buffers[index].count > start { buffers[index].removeSubrange(start...) }
            return false
        }
        buffers[index].append(UInt8(ascii: "\n"))
        counts[index] += 1
        weights[index] += weight
        return true
    }

    /// Records in all side outputs.
    var total: Int { counts.reduce(0, +) }
}

/// What a destination made of an identify, group or alias message (its
/// `profileTypes`): the records it wrote to its events' file set (its side
/// outputs' are in the `SideRecords`), a refusal, a reason it does not take
/// the message, or the message kept for the device's later events.
public enum ProfileOutcome: Equatable {
    /// This many records were appended to the events' file set (0 when all went
    /// to side outputs; with none there either, the fan-out counts the message not
    /// taken, `nothing_to_send`, rather than delivered without a record).
    case records(Int)
    /// The provider would not accept it; the message goes to the rejects for this destination.
    case refused(Rejection)
    /// The destination has no use for it (counted in `not_taken_by_reason` under this reason).
    case notTaken(String)
    /// Kept in the destination's memory of the device, for its later events
    /// (GA4's user properties); no record now.
    case remembered
}

extension RejectReason {
    /// Mixpanel, Amplitude: an alias without a `userId`, without a `previousId` (or
    /// `anonymousId`) to map to it, or mapping an id to itself.
    static let invalidAlias = RejectReason("invalid_alias")
}

/// The id of a message's `previousId` (an alias's old id), by `MessageIdentity`'s
/// rule; without one, its `anonymousId`, as RudderStack's Mixpanel and
/// Amplitude destinations read it (rudder-transformer src/v0/destinations/mp/transform.js
/// `processAliasEvents`: `message.previousId || message.anonymousId`).
func aliasPreviousID(_ document: JSONDocument, anonymousId: Int?) -> Int? {
    MessageIdentity.id(document, document.member("previousId" as StaticString, of: 0)) ?? anonymousId
}
