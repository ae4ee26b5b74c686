import Sluice
import Testing

/// `send:` as `sluice validate` checks it.
@Suite struct SendSettingsTests {
    private func load(_ destination: String) throws(ConfigurationError) -> PipelineConfiguration {
        try PipelineConfiguration.load(yaml: "version: 1\ndestinations:\n  \(destination)\n", file: "p.yaml")
    }

    private func errors(_ destination: String) -> [String] {
        do {
            _ = try load(destination)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func aSendBlockIsReadWithItsDefaults() throws {
        let configuration = try load("mp: {type: mixpanel, send: {credentials_env: MIXPANEL_SECRET}}")
        let send = try #require(configuration.destinations[0].send)
        #expect(send.credentials == .environment("MIXPANEL_SECRET"))
        #expect(send.region == "us")
        #expect(send.concurrency == 2)
        #expect(send.maxRequestsPerSecond == nil)
        #expect(send.afterSend == .move)
        let full = try load("mp: {type: mixpanel, send: {credentials_file: /etc/sluice/mp.secret, region: eu, concurrency: 8, "
            + "max_requests_per_second: 2.5, after_send: delete, project_id: \"123\"}}").destinations[0].send
        #expect(full?.credentials == .file("/etc/sluice/mp.secret"))
        #expect(full?.region == "eu")
        #expect(full?.concurrency == 8)
        #expect(full?.maxRequestsPerSecond == 2.5)
        #expect(full?.afterSend == .delete)
        #expect(full?.options["project_id"] == "123")
        #expect(try load("mp: {type: mixpanel}").destinations[0].send == nil)
    }

    @Test func aSecretWrittenInTheFileIsRefusedWithoutRepeatingIt() {
        let secret = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"
        let inline = errors("mp: {type: mixpanel, send: {api_secret: \(secret)}}")
        #expect(inline.count == 1)
        #expect(inline.first?.contains("a secret is never written in the pipeline file") == true)
        let asName = errors("mp: {type: mixpanel, send: {credentials_env: \(secret)}}")
        #expect(asName.first?.contains("looks like a secret") == true)
        for message in inline + asName { #expect(!message.contains(secret)) }
        // A Stripe-style key has `_`s, so it reads as a name unless its long, digit-bearing part gives it away.
        let stripeStyle = "sk_live_abcdef1234567890abcdef"
        let prefixed = errors("sg: {type: segment, send: {credentials_env: \"\(stripeStyle)\"}}")
        #expect(prefixed.count == 1 && prefixed.first?.contains("looks like a secret") == true, "\(prefixed)")
        #expect(!(prefixed.first ?? "").contains(stripeStyle))
    }

    @Test func wrongValuesAreErrorsWithTheirPlace() {
        #expect(errors("mp: {type: mixpanel, send: {region: eu}}").first?
            .hasSuffix("destinations.mp.send needs credentials_env (a variable's name) or credentials_file (a path)") == true)
        #expect(errors("mp: {type: mixpanel, send: {credentials_env: A, credentials_file: b}}").first?
            .contains("not both") == true)
        #expect(errors("mp: {type: mixpanel, send: {credentials_env: A, region: mars}}").first?
            .contains("region must be one of us, eu, in") == true)
        #expect(errors("mp: {type: mixpanel, send: {credentials_env: A, after_send: archive}}").first?
            .contains("keep, move or delete") == true)
        #expect(errors("mp: {type: mixpanel, send: {credentials_env: A, concurrency: 0}}").count == 1)
        #expect(errors("mp: {type: mixpanel, send: {credentials_env: A, max_requests_per_second: -1}}").count == 1)
    }

    @Test func aSendBlockOnATypeSendDoesNotDeliverToIsRefusedNamingTheSupportedOnes() {
        let found = errors("d: {type: ndjson, send: {credentials_env: KEY}}")
        #expect(found.count == 1)
        #expect(found.first?.contains("sluice send does not deliver to ndjson; it sends to mixpanel, amplitude, ga4, adjust, segment") == true)
    }

    @Test func ga4NeedsExactlyOneOfMeasurementIDAndFirebaseAppID() {
        #expect(errors("g: {type: ga4, send: {credentials_env: KEY}}").first?
            .contains("needs one of measurement_id, firebase_app_id for ga4") == true)
        #expect(errors("g: {type: ga4, send: {credentials_env: KEY, measurement_id: G-1, firebase_app_id: x}}").count == 1)
        #expect(errors("g: {type: ga4, send: {credentials_env: KEY, measurement_id: G-1}}").isEmpty)
    }
}
