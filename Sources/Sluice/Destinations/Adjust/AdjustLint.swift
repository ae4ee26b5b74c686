extension AdjustDestination {
    /// What the adapter would predictably do with a planned track event routed here:
    /// - without an event token in `tokens:` for the name it is delivered under
    ///   (after `rename:`, which comes first), it is not sent (counted
    ///   `not_taken_by_reason.unsupported_event`): a warning, since routing
    ///   `events: ["*"]` to Adjust on purpose relies on exactly that; when the
    ///   token is keyed by the planned name instead, the warning says so;
    /// - with `revenue` (or `price`) planned but no `currency`, revenue is never sent.
    public func lint(_ message: PlannedMessage) -> [LintFinding] {
        guard message.type == .track else { return [] }
        var findings: [LintFinding] = []
        if tokens[Array(message.deliveredName.utf8)] == nil {
            if message.isRenamed && tokens[Array(message.name.utf8)] != nil {
                findings.append(LintFinding(.warning, "event '\(message.name)' is renamed to '\(message.deliveredName)', which has no token in `tokens:` (rename: comes first), so Adjust would not get it; key the token by the new name"))
            } else {
                findings.append(LintFinding(.warning, "event '\(message.deliveredName)' has no Adjust event token in `tokens:`, so Adjust would not get it; add its token, or leave it out of the destination's `events:`"))
            }
            return findings
        }
        let names = Set(message.properties.map(\.name))
        for money in ["revenue", "price"] where names.contains(money) && !names.contains("currency") {
            findings.append(LintFinding(.warning, property: money, "property '\(money)' is planned without 'currency'; Adjust only sends revenue with a currency, so it would never be sent"))
        }
        return findings
    }
}
