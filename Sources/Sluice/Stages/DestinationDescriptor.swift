/// What a stage may know of the pipeline's destinations: enough to mark an
/// event "not for these", never how to reach them. The runner hands the list
/// to the stages that do, before the first event (`DestinationWithholdingStage.prepare(destinations:)`).
public struct DestinationDescriptor: Sendable, Equatable {
    /// The destination's position in the pipeline file: the index a `WithheldDestinations` mark uses.
    public var index: Int
    public var name: String
    /// The `type:` (`mixpanel`, `ndjson`, ...).
    public var type: String
    /// `consent_category`: the consent category the destination is mapped to, or nil for none.
    public var consentCategory: String?

    public init(index: Int, name: String, type: String, consentCategory: String?) {
        self.index = index
        self.name = name
        self.type = type
        self.consentCategory = consentCategory
    }
}
