/// The `adjust` keys of a destination: `app_token`, `tokens` (event name →
/// event token), `environment`, `partner_params`, each checked as Adjust checks it.
extension AdjustDestination {
    static func make(name: String, options: [String: ConfigValue], _ reader: inout ConfigReader) -> AdjustDestination? {
        var ok = true
        var appToken = ""
        if let node = options["app_token"], let text = reader.string(node, what: "destinations.\(name).app_token") {
            if !AdjustDestination.isToken(text, length: 12) {
                reader.error(node, "destinations.\(name).app_token must be 12 letters and digits (Adjust's app token), not '\(text)'")
                ok = false
            }
            appToken = text
        } else if options["app_token"] == nil {
            reader.error(nil, "destination '\(name)' (adjust) needs `app_token:`")
            ok = false
        }
        var tokens: [[UInt8]: [UInt8]] = [:]
        if let node = options["tokens"] {
            if let mapping = node.mapping {
                for (key, value) in mapping {
                    guard let event = key.scalar?.text, let token = value.scalar?.text else {
                        reader.error(key, "destinations.\(name).tokens maps event names to tokens")
                        ok = false
                        continue
                    }
                    if !AdjustDestination.isToken(token, length: 6) {
                        reader.error(value, "destinations.\(name).tokens.\(event) must be 6 letters and digits (an Adjust event token), not '\(token)'")
                        ok = false
                    }
                    tokens[Array(event.utf8)] = Array(token.utf8)
                }
            } else {
                reader.error(node, "destinations.\(name).tokens must map event names to 6-character tokens")
                ok = false
            }
        } else {
            reader.error(nil, "destination '\(name)' (adjust) needs `tokens:` (event name → 6-character event token)")
            ok = false
        }
        var environment = "production"
        if let node = options["environment"], let text = reader.string(node, what: "destinations.\(name).environment") {
            if text != "production" && text != "sandbox" {
                reader.error(node, "destinations.\(name).environment must be production or sandbox")
                ok = false
            }
            environment = text
        }
        var partner: [String] = []
        if let node = options["partner_params"], let list = reader.strings(node, what: "destinations.\(name).partner_params") {
            partner = list
        }
        let ecommerce = EcommerceSettings(options: options, destination: name, &reader)
        guard ok else { return nil }
        return AdjustDestination(appToken: appToken, tokens: tokens, environment: environment, partnerParams: partner, ecommerce: ecommerce)
    }

    /// [campaign] an app token is 12 characters, [sdk-token] an event token 6, both letters and digits
    /// ([s2s] examples `4w565xzmb54d`, `f0ob4r`).
    static func isToken(_ text: String, length: Int) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) }
    }
}
