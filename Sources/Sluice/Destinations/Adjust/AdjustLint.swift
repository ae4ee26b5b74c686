extension AdjustDestination {
    /// What the adapter would predictably do with a planned track event routed here:
    /// - without an event token in `tokens:`, it is not sent (counted
    ///   `not_taken_by_reason.unsupported_event`): a warning, since routing
    ///   `events: ["*"]` to Adjust on purpose relies on exactly that;
    /// - renamed by `rename:` to a name without a token (while the planned name
    ///   has one), it is refused (`unsupported_event`): an error;
    /// - with `revenue` (or `price`) planned but no `currency`, revenue is never sent.
    public func lint(_ message: PlannedMessage) -> [LintFinding] {
        guard message.type == .track else { return [] }
        var findings: [LintFinding] = []
        if tokens[Array(message.name.utf8)] == nil {
            findings.append(LintFinding(.warning, "event '\(message.name)' has no Adjust event token in `tokens:`, so Adjust would not get it; add its token, or leave it out of the destination's `events:`"))
            return findings
        }
        if message.isRenamed && tokens[Array(message.deliveredName.utf8)] == nil {
            findings.append(LintFinding(.error, "event '\(message.name)' is renamed to '\(message.deliveredName)', which has no token in `tokens:`, so Adjust would refuse it (unsupported_event); key the token by the new name"))
        }
        let names = Set(message.properties.map(\.name))
        for money in ["revenue", "price"] where names.contains(money) && !names.contains("currency") {
            findings.append(LintFinding(.warning, property: money, "property '\(money)' is planned without 'currency'; Adjust only sends revenue with a currency, so it would never be sent"))
        }
        return findings
    }
}
