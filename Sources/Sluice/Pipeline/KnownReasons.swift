extension RejectReason {
    /// Every reason Sluice can reject with: the core ones, then each stage
    /// type's, then each destination type's, in registry order.
    public static let allCases: [RejectReason] = {
        var all = core
        let declared = StageRegistry.types.flatMap(\.rejectReasons) + DestinationRegistry.types.flatMap(\.rejectReasons)
        for reason in declared where !all.contains(reason) { all.append(reason) }
        return all
    }()
}

extension DropReason {
    /// Every reason Sluice can drop with: the core ones, then each stage type's, in registry order.
    public static let allCases: [DropReason] = {
        var all = core
        for reason in StageRegistry.types.flatMap(\.dropReasons) where !all.contains(reason) { all.append(reason) }
        return all
    }()
}
