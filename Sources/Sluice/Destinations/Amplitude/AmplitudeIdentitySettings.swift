/// An Amplitude destination's keys for identify, group and alias (see
/// `AmplitudeIdentify.swift`, where the pages they follow are cited).
struct AmplitudeIdentitySettings {
    /// `set_once`: traits an identify sets with `$setOnce`.
    var setOnce: [[UInt8]] = []
    /// `group_type_trait`, `group_value_trait`: [segment] the traits of a group message holding its type and value.
    var groupTypeTrait: [UInt8]?
    var groupValueTrait: [UInt8]?
    /// `user_mapping` (default false): aliases become user mappings.
    var userMapping = false

    init() {}

    init(options: [String: ConfigValue], destination: String, _ reader: inout ConfigReader) {
        let prefix = "destinations.\(destination)."
        if let node = options["set_once"], let names = reader.strings(node, what: prefix + "set_once") {
            setOnce = names.map { Array($0.utf8) }
        }
        if let node = options["group_type_trait"], let text = reader.string(node, what: prefix + "group_type_trait") {
            groupTypeTrait = Array(text.utf8)
        }
        if let node = options["group_value_trait"], let text = reader.string(node, what: prefix + "group_value_trait") {
            groupValueTrait = Array(text.utf8)
        }
        if (options["group_type_trait"] == nil) != (options["group_value_trait"] == nil) {
            reader.error(options["group_type_trait"] ?? options["group_value_trait"],
                         prefix + "group_type_trait and group_value_trait go together: one names the group's type, the other its value")
        }
        if let node = options["user_mapping"], let value = reader.boolean(node, what: prefix + "user_mapping") { userMapping = value }
    }
}
