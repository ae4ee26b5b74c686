extension GA4Destination {
    /// What `encode` would predictably do to a planned message, by the same rules:
    /// - an event name GA4 does not accept is normalized (a warning: the
    ///   dashboard shows another name) or, with `names: reject`, refused (an error);
    /// - a property name that is not a valid param name is normalized;
    /// - `session_id` and `engagement_time_msec` are Sluice's own params: a
    ///   property of that name is dropped;
    /// - an `array` property is dropped, an `object` one flattened to `NAME_KEY` params;
    /// - more than 25 params in all: the last ones are dropped.
    public func lint(_ message: PlannedMessage) -> [LintFinding] {
        var findings: [LintFinding] = []
        // A spec ecommerce event is sent under GA4's recommended name, the properties its
        // mapping reads as its params and items (`GA4Ecommerce.swift`).
        let spec = ecommerce.enabled && message.type == .track ? ecommerce.names.event(named: Array(message.deliveredName.utf8)) : nil
        let mapped = spec.flatMap { spec in GA4EcommerceMapping.mapping(for: spec).map { (spec, $0) } }
        if message.type == .track && mapped == nil {
            let name = message.deliveredName
            let kind = GA4Names.Kind.event(web: stream == .web)
            if !GA4Names.isValid(Array(name.utf8), maxLength: GA4Names.maxNameLength, kind: kind) {
                let fixed = String(decoding: GA4Names.normalize(Array(name.utf8), maxLength: GA4Names.maxNameLength, kind: kind).name,
                                   as: UTF8.self)
                let subject = message.isRenamed ? "event '\(message.name)', renamed to '\(name)'," : "event '\(name)'"
                if names == .reject {
                    findings.append(LintFinding(.error, "\(subject) is not a valid GA4 event name (40 characters of [A-Za-z0-9_] starting with a letter, not reserved); with `names: reject` it would be refused (invalid_event_name); add `rename: {\"\(message.name)\": \(fixed)}` to the destination"))
                } else {
                    findings.append(LintFinding(.warning, "\(subject) is not a valid GA4 event name and would be sent as '\(fixed)'; add `rename: {\"\(message.name)\": \(fixed)}` to the destination to choose the name"))
                }
            }
        }
        var used: Set<String> = ["session_id", "engagement_time_msec"]
        var params = used.count + (message.type == .track ? 0 : 1)  // screen_name / page_title
        for property in message.properties {
            if let (spec, mapping) = mapped,
               Array(property.name.utf8).withSpan({ mapping.consumes($0, of: spec, revenueFrom: ecommerce) }) { continue }
            switch property.type.base {
            case .array:
                findings.append(LintFinding(.warning, property: property.name, "property '\(property.name)' is an array; GA4 params cannot hold arrays, so it would be left out"))
                continue
            case .object:
                findings.append(LintFinding(.warning, property: property.name, "property '\(property.name)' is an object; GA4 would get it flattened one level, as '\(property.name)_KEY' params"))
                continue
            default:
                break
            }
            var param = property.name
            if !GA4Names.isValid(Array(param.utf8), maxLength: GA4Names.maxNameLength, kind: .parameter) {
                param = String(decoding: GA4Names.normalize(Array(param.utf8), maxLength: GA4Names.maxNameLength, kind: .parameter).name,
                               as: UTF8.self)
                findings.append(LintFinding(.warning, property: property.name, "property '\(property.name)' is not a valid GA4 param name and would be sent as '\(param)'"))
            }
            if !used.insert(param).inserted {
                findings.append(LintFinding(.warning, property: property.name, "property '\(property.name)' would be left out: GA4 already gets a param '\(param)' (Sluice sets session_id and engagement_time_msec)"))
                continue
            }
            params += 1
        }
        if params > GA4Destination.maxParams {
            findings.append(LintFinding(.warning, "\(message.type.rawValue) '\(message.name)' would have \(params) GA4 params with every planned property present; GA4 takes \(GA4Destination.maxParams), so \(params - GA4Destination.maxParams) would be left out"))
        }
        return findings
    }
}
