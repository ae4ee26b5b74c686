extension TrackingPlan: DestinationLintingStage {
    /// Each planned message against each destination that would get it: its
    /// type taken there and its name routed there by `events:` (a message's own
    /// `integrations` cannot be known ahead). The destination predicts what it
    /// would refuse, leave out or rename; the finding is placed on the
    /// property's name in the plan, or on the message's.
    public func lint(destinations: [DestinationSettings]) -> [LintDiagnostic] {
        var plans = settings.events + (settings.screens ?? [])
        if let identify = settings.identify { plans.append(identify) }
        var found: [LintDiagnostic] = []
        for destination in destinations {
            var routes = RoutingRules(patterns: destination.events, destinationName: destination.name,
                                      destinationType: destination.type.name)
            for plan in plans where destination.destination.supportedTypes.contains(plan.type) {
                let routedName = plan.type == .identify ? "identify" : plan.name
                guard routes.accepts(name: Array(routedName.utf8)) else { continue }
                // The runner renames track and screen names (docs/pipeline-file.md, `rename`).
                let renamed = plan.type == .identify ? nil : destination.rename[Array(plan.name.utf8)]
                let message = PlannedMessage(plan: plan, deliveredName: renamed ?? plan.name, isRenamed: renamed != nil)
                for finding in destination.destination.lint(message) {
                    let property = finding.property.flatMap { name in plan.properties.first { $0.name == name } }
                    found.append(LintDiagnostic(line: property?.line ?? plan.line, column: property?.column ?? plan.column,
                                                severity: finding.severity,
                                                message: "destination '\(destination.name)' (\(destination.type.name)): \(finding.message)"))
                }
            }
        }
        return found
    }
}
