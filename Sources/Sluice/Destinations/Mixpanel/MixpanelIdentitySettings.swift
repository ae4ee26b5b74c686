/// A Mixpanel destination's keys for profiles, groups and identities (see
/// `MixpanelProfiles.swift`), each citing the page it follows:
/// - [engage]: docs.mixpanel.com/reference/profile-set (`/engage`: `$token`, `$distinct_id`, `$set`, `$set_once`, `$union`)
/// - [groups]: docs.mixpanel.com/reference/group-set-property (`/groups`: `$token`, `$group_key`, `$group_id`, `$set`)
/// - [id-merge]: docs.mixpanel.com/docs/tracking-methods/id-management ("Simplified ID Merge API is the default
///   for new organizations created from April 2024"; both APIs remain supported)
struct MixpanelIdentitySettings {
    /// `identity`: the project's ID Merge API.
    enum Identity: String { case simplified, original }

    /// `token`: the project token. [engage] [groups] every update object
    /// carries `$token`, and [id-merge] `$merge` and `$create_alias` a `token`
    /// property; without it no profile, group or alias is sent (counted
    /// `no_project_token`): Sluice does not invent one.
    var token: [UInt8]?
    /// `identity` (default `simplified`, [id-merge]). `original`: an alias
    /// becomes `$create_alias`, and an identify with both ids a `$merge`.
    var identity = Identity.simplified
    /// `set_once`: traits sent with `$set_once` ([engage] "Set Property Once":
    /// never overwrites a value the profile has), the rest with `$set`.
    var setOnce: [[UInt8]] = []
    /// `group_keys`: the group keys of the project ([groups]), each a trait of
    /// the `group` message holding the group's id (`groupId`: the message's own),
    /// as Segment's "Group Identifier Traits" setting reads them
    /// (segment.com/docs/connections/destinations/catalog/mixpanel/#group). None: group messages are not taken (`no_group_key`).
    var groupKeys: [[UInt8]] = []

    init() {}

    init(options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) {
        if let node = options["token"], let text = reader.string(node, what: "destinations.\(destination).token") {
            if text.isEmpty || text.contains(where: { $0.isWhitespace }) {
                reader.error(node, "destinations.\(destination).token must be the project token (Project Settings), without spaces")
            } else {
                token = Array(text.utf8)
            }
        }
        if let node = options["identity"] {
            if let text = node.scalar?.text, let value = Identity(rawValue: text) {
                identity = value
            } else {
                reader.error(node, "destinations.\(destination).identity must be simplified or original (the project's ID Merge API)")
            }
        }
        if let node = options["set_once"], let names = reader.strings(node, what: "destinations.\(destination).set_once") {
            setOnce = names.map { Array($0.utf8) }
        }
        if let node = options["group_keys"], let names = reader.strings(node, what: "destinations.\(destination).group_keys") {
            for (name, item) in zip(names, node.sequence ?? []) where name.isEmpty {
                reader.error(item, "destinations.\(destination).group_keys holds an empty name; each is a group key of the project")
            }
            groupKeys = names.filter { !$0.isEmpty }.map { Array($0.utf8) }
        }
    }
}
