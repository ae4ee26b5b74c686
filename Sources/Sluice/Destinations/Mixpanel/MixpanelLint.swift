extension MixpanelDestination {
    /// What `encode` would predictably do to a planned message: a track named like
    /// Mixpanel's own events renamed or refused (`ReservedEventNames`); leave out a
    /// property named like one Sluice sets itself (`time`, `distinct_id`,
    /// `$insert_id`, ...) or one that makes Mixpanel drop or hide the event
    /// (`$ignore`, `bucket`), a name cut at 255 bytes, and properties beyond
    /// Mixpanel's limit of 255 per event.
    public func lint(_ message: PlannedMessage) -> [LintFinding] {
        var findings = reservedNames.lint(message, provider: "Mixpanel")
        var count = 3  // time, distinct_id, $insert_id: always set
        for property in message.properties {
            let name = Array(property.name.utf8)
            if MixpanelDestination.reserved.contains(name) {
                findings.append(LintFinding(.warning, property: property.name, "property '\(property.name)' would be left out: " +
                    (["$ignore", "$bucket", "bucket"].contains(property.name) ? "with it Mixpanel would drop or hide the event" : "Mixpanel's '\(property.name)' is set by Sluice")))
                continue
            }
            if name.count > MixpanelDestination.maxStringBytes {
                findings.append(LintFinding(.warning, property: property.name, "property name '\(property.name.prefix(40))…' has \(name.count) bytes; Mixpanel would get it cut to \(MixpanelDestination.maxStringBytes)"))
            }
            count += 1
        }
        if count > MixpanelDestination.maxProperties {
            findings.append(LintFinding(.warning, "\(message.type.rawValue) '\(message.name)' plans \(message.properties.count) properties; Mixpanel takes fewer than 255 per event with Sluice's own, so some would be left out"))
        }
        return findings
    }
}
